/// What the `gpsd-server` sink may pass to a client watching with `nmea` or `raw`: exactly one
/// framed, checksummed NMEA 0183 sentence. The sentence comes from the bus (`obs.nmea`), where
/// any publisher on the ingest socket may put one; a client reads the bytes as a line of its
/// gpsd stream, so anything else (a line end followed by a forged JSON report, a megabyte of
/// text) must never reach it.
public enum GpsdPassThroughSentence {
    /// Longest sentence passed on, `$` to the checksum inclusive: `obs.nmea`'s schema bound
    /// (NMEA 0183 allows 82; receivers write longer proprietary sentences).
    public static let maxBytes = 256

    /// True if `sentence` is `$` or `!`, then printable ASCII (0x20–0x7E) without another `$`,
    /// `!` or `*`, then `*hh` whose two hex digits are the XOR of the bytes between the first
    /// byte and the `*` (NMEA 0183 §5.2.1); at most `maxBytes` in all, no line end.
    public static func isOneSentence(_ sentence: String) -> Bool {
        let utf8 = sentence.utf8
        return utf8.withContiguousStorageIfAvailable { isOneSentence(bytes: $0) }
            ?? isOneSentence(bytes: Array(utf8))
    }

    /// `isOneSentence` of raw bytes.
    public static func isOneSentence<C: Collection>(bytes: C) -> Bool where C.Element == UInt8, C.Index == Int {
        let n = bytes.count
        guard n >= 5, n <= maxBytes else { return false }
        let start = bytes.startIndex
        guard bytes[start] == 0x24 || bytes[start] == 0x21 else { return false }  // '$' or '!'
        let star = start + n - 3
        guard bytes[star] == 0x2A, let hi = hex(bytes[star + 1]), let lo = hex(bytes[star + 2]) else { return false }
        var sum: UInt8 = 0
        var i = start + 1
        while i < star {
            let c = bytes[i]
            guard c >= 0x20, c <= 0x7E, c != 0x24, c != 0x21, c != 0x2A else { return false }
            sum ^= c
            i += 1
        }
        return hi << 4 | lo == sum
    }

    private static func hex(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: c - 0x30
        case 0x41...0x46: c - 0x41 + 10
        case 0x61...0x66: c - 0x61 + 10
        default: nil
        }
    }
}
