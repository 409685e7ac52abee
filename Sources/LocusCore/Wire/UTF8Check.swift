/// UTF-8 validation for message bodies (RFC 3629: no overlong forms, no surrogates, nothing
/// past U+10FFFF). JSON text is UTF-8; the scanner only looks at ASCII structure, so without
/// this, bytes that are not UTF-8 inside a string would be forwarded to subscribers whose JSON
/// parsers refuse them. Nearly all traffic is ASCII: eight bytes at a time until a high byte.
public enum UTF8Check {
    /// The offset of the first byte that is not part of valid UTF-8, or nil.
    public static func firstInvalid(_ b: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let p = b.baseAddress else { return nil }
        let n = b.count
        var i = 0
        while i < n {
            while i &+ 8 <= n, UnsafeRawPointer(p + i).loadUnaligned(as: UInt64.self) & 0x8080_8080_8080_8080 == 0 { i &+= 8 }
            guard i < n else { return nil }
            let c = p[i]
            if c < 0x80 { i &+= 1; continue }
            let length: Int, low: UInt8, high: UInt8
            switch c {
            case 0xC2...0xDF: (length, low, high) = (2, 0x80, 0xBF)
            case 0xE0: (length, low, high) = (3, 0xA0, 0xBF)        // no overlong forms
            case 0xE1...0xEC, 0xEE...0xEF: (length, low, high) = (3, 0x80, 0xBF)
            case 0xED: (length, low, high) = (3, 0x80, 0x9F)        // no surrogates
            case 0xF0: (length, low, high) = (4, 0x90, 0xBF)
            case 0xF1...0xF3: (length, low, high) = (4, 0x80, 0xBF)
            case 0xF4: (length, low, high) = (4, 0x80, 0x8F)        // nothing past U+10FFFF
            default: return i
            }
            guard i &+ length <= n else { return i }
            guard p[i &+ 1] >= low, p[i &+ 1] <= high else { return i }
            for k in 2..<max(2, length) where p[i &+ k] & 0xC0 != 0x80 { return i }
            i &+= length
        }
        return nil
    }
}
