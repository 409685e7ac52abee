/// A 48-bit Bluetooth device address. HCI sends it least-significant byte first; `description`
/// writes it most-significant first, `AA:BB:CC:DD:EE:FF`, as BlueZ and `obs.ble` do.
public struct BLEAddress: Sendable, Hashable, CustomStringConvertible {
    /// The address as a number (the first byte on air is bits 0–7).
    public var value: UInt64

    public init(value: UInt64) { self.value = value & 0xFFFF_FFFF_FFFF }

    /// Reads the 6 little-endian bytes at `p[i...]`; the caller checks bounds.
    @inline(__always) static func read(_ p: UnsafeBufferPointer<UInt8>, at i: Int) -> BLEAddress {
        var v: UInt64 = 0
        for k in 0..<6 { v |= UInt64(p[i + k]) << (8 * k) }
        return BLEAddress(value: v)
    }

    /// Parses `AA:BB:CC:DD:EE:FF` (either case; `-` also accepted as separator).
    public init?(_ text: some StringProtocol) {
        let u = Array(text.utf8)
        guard u.count == 17 else { return nil }
        var v: UInt64 = 0
        for k in 0..<6 {
            let i = k * 3
            if k > 0, u[i - 1] != UInt8(ascii: ":"), u[i - 1] != UInt8(ascii: "-") { return nil }
            guard let hi = Hex.nibble(u[i]), let lo = Hex.nibble(u[i + 1]) else { return nil }
            v = v << 8 | UInt64(hi << 4 | lo)
        }
        self.init(value: v)
    }

    /// `AA:BB:CC:DD:EE:FF`, upper case, most significant byte first.
    public var description: String {
        let digits = Array("0123456789ABCDEF".utf8)
        var out = [UInt8](); out.reserveCapacity(17)
        for k in (0..<6).reversed() {
            let b = UInt8(truncatingIfNeeded: value >> (8 * k))
            out.append(digits[Int(b >> 4)]); out.append(digits[Int(b & 0x0F)])
            if k > 0 { out.append(UInt8(ascii: ":")) }
        }
        return String(decoding: out, as: UTF8.self)
    }
}
