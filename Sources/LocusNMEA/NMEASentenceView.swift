/// One validated sentence, without `$` and `*hh`: field 0 is the address (`GPGGA`), fields
/// 1… are the comma-separated data fields as NMEA 0183 numbers them.
///
/// A view into the framer's line storage: valid until the framer is fed again. Nothing here
/// allocates; empty or malformed fields read as nil.
public struct NMEASentenceView {
    let base: UnsafePointer<UInt8>
    let starts: UnsafePointer<Int32>
    /// Number of fields including the address.
    public let fieldCount: Int
    /// Bytes of the whole sentence as received, `$` to the checksum (no line end).
    let length: Int

    init(base: UnsafePointer<UInt8>, starts: UnsafePointer<Int32>, fieldCount: Int, length: Int) {
        self.base = base
        self.starts = starts
        self.fieldCount = fieldCount
        self.length = length
    }

    /// The whole sentence as received: `$`, address, fields and `*hh` (when it had one), without
    /// the line end or trailing white space (NMEA pass-through).
    public var sentence: UnsafeBufferPointer<UInt8> { UnsafeBufferPointer(start: base, count: length) }

    /// The bytes of field `i` (empty when absent).
    public func field(_ i: Int) -> UnsafeBufferPointer<UInt8> {
        guard i >= 0, i < fieldCount else { return UnsafeBufferPointer(start: base, count: 0) }
        let s = Int(starts[i]), e = Int(starts[i + 1]) - 1 // minus the comma
        return UnsafeBufferPointer(start: base + s, count: max(0, e - s))
    }

    /// Field `i` as a String (for tests and diagnostics; allocates).
    public func string(_ i: Int) -> String { String(decoding: field(i), as: UTF8.self) }

    /// The two-letter talker id (`GP`, `GN`, …) packed as two bytes, or 0 for a short address.
    var talker: UInt16 {
        let a = field(0)
        guard a.count >= 5 else { return 0 }
        return UInt16(a[0]) << 8 | UInt16(a[1])
    }

    /// The sentence formatter (`GGA`), the last three bytes of a five-byte address, packed.
    var formatter: UInt32 {
        let a = field(0)
        guard a.count == 5 else { return 0 }
        return UInt32(a[2]) << 16 | UInt32(a[3]) << 8 | UInt32(a[4])
    }

    /// Field `i` as a decimal number; nil when empty or malformed.
    public func double(_ i: Int) -> Double? { NMEANumber.double(field(i)) }
    /// Field `i` as an integer; nil when empty, malformed or fractional.
    public func int(_ i: Int) -> Int? { NMEANumber.int(field(i)) }
    /// First byte of field `i`, for one-letter fields (status, hemisphere, mode).
    public func character(_ i: Int) -> UInt8? {
        let f = field(i)
        return f.isEmpty ? nil : f[0]
    }
}

/// Packs a three-letter formatter the way `NMEASentenceView.formatter` does.
@inline(__always) func nmeaFormatter(_ s: StaticString) -> UInt32 {
    let p = s.utf8Start
    return UInt32(p[0]) << 16 | UInt32(p[1]) << 8 | UInt32(p[2])
}

@inline(__always) func nmeaTalker(_ s: StaticString) -> UInt16 {
    let p = s.utf8Start
    return UInt16(p[0]) << 8 | UInt16(p[1])
}
