import LocusCore

/// Timestamp checks for the hub: the form Locus writes is checked with a few word operations,
/// anything else by `JSONReader.readTime`, so exactly the timestamps LocusCore accepts pass.
enum CanonicalTimestamp {
    /// True if the quoted token is a timestamp `JSONReader.readTime` accepts. The form Locus
    /// writes (`"YYYY-MM-DDTHH:MM:SS.mmmZ"`) is checked here directly; anything else is left to
    /// `readTime`, so exactly the same timestamps pass.
    static func isTimestamp(_ quoted: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        if count == 26, let fast = check(quoted + 1) { return fast }
        var r = JSONReader(UnsafeBufferPointer(start: quoted, count: count))
        return (try? r.readTime()) != nil
    }

    /// For 24 bytes shaped `DDDD-DD-DDTDD:DD:DD.DDDZ`: whether the date and time are valid.
    /// Nil if the shape differs (then the general parser decides). Reads exactly 24 bytes.
    @inline(__always)
    static func check(_ t: UnsafePointer<UInt8>) -> Bool? {
        let raw = UnsafeRawPointer(t)
        let w0 = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))                    // YYYY-MM-
        let w1 = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))  // DDTHH:MM
        let w2 = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self)) // :SS.mmmZ
        guard w0 & 0xFF00_00FF_0000_0000 == 0x2D00_002D_0000_0000,
              w1 & 0x0000_FF00_00FF_0000 == 0x0000_3A00_0054_0000,
              w2 & 0xFF00_0000_FF00_00FF == 0x5A00_0000_2E00_003A,
              ByteMasks.nonDigits(w0) & 0x0080_8000_8080_8080 == 0,
              ByteMasks.nonDigits(w1) & 0x8080_0080_8000_8080 == 0,
              ByteMasks.nonDigits(w2) & 0x0080_8080_0080_8000 == 0 else { return nil }
        @inline(__always) func two(_ k: Int) -> Int { Int(t[k] &- 0x30) &* 10 &+ Int(t[k + 1] &- 0x30) }
        let month = two(5), day = two(8)
        guard month >= 1, month <= 12, day >= 1, two(11) < 24, two(14) < 60, two(17) <= 60 else { return false }
        guard day > 28 else { return true }
        let year = two(0) &* 100 &+ two(2)
        let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
        switch month {
        case 2: return day <= (leap ? 29 : 28)
        case 4, 6, 9, 11: return day <= 30
        default: return day <= 31
        }
    }
}
