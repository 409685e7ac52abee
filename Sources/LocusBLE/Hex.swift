/// Lower-case hex, the form binary fields take on the wire.
public enum Hex {
    private static let digits = Array("0123456789abcdef".utf8)

    public static func string(_ bytes: some Sequence<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for b in bytes { out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0x0F)]) }
        return String(decoding: out, as: UTF8.self)
    }

    /// Bytes of a hex string (either case; no separators); nil for odd length or a non-hex digit.
    public static func bytes(_ text: some StringProtocol) -> [UInt8]? {
        let u = Array(text.utf8)
        guard u.count % 2 == 0 else { return nil }
        var out = [UInt8](); out.reserveCapacity(u.count / 2)
        var i = 0
        while i < u.count {
            guard let hi = nibble(u[i]), let lo = nibble(u[i + 1]) else { return nil }
            out.append(hi << 4 | lo)
            i += 2
        }
        return out
    }

    /// `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` for 16 bytes.
    public static func uuidString(_ b: some Collection<UInt8>) -> String {
        precondition(b.count == 16)
        let h = string(b)
        let c = Array(h.utf8)
        var out = [UInt8](); out.reserveCapacity(36)
        for (i, ch) in c.enumerated() {
            if i == 8 || i == 12 || i == 16 || i == 20 { out.append(UInt8(ascii: "-")) }
            out.append(ch)
        }
        return String(decoding: out, as: UTF8.self)
    }

    @inline(__always) static func nibble(_ c: UInt8) -> UInt8? {
        switch c {
        case 0x30...0x39: return c - 0x30
        case 0x61...0x66: return c - 0x61 + 10
        case 0x41...0x46: return c - 0x41 + 10
        default: return nil
        }
    }
}
