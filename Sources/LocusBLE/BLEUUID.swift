/// A Bluetooth service UUID as read from an AD structure: 16-, 32- or 128-bit.
///
/// On air every width is little-endian; here the value is held most-significant byte first in
/// two words, with 16- and 32-bit values placed on the Bluetooth base UUID
/// (`0000xxxx-0000-1000-8000-00805f9b34fb`), so equal services compare equal whatever width they
/// were sent in. No allocation: parsing a UUID list costs no heap traffic.
public struct BLEUUID: Sendable, Hashable, CustomStringConvertible {
    /// Bytes 0–7 of the 128-bit form, big-endian.
    public var high: UInt64
    /// Bytes 8–15 of the 128-bit form, big-endian.
    public var low: UInt64
    /// 2, 4 or 16: how many bytes the UUID took on air.
    public var width: Int

    /// The low half of the Bluetooth base UUID (`…-8000-00805f9b34fb`).
    static let baseLow: UInt64 = 0x8000_0080_5F9B_34FB
    /// The high half of the base UUID without the 32-bit value (`xxxxxxxx-0000-1000`).
    static let baseHighTail: UInt64 = 0x0000_1000

    public init(high: UInt64, low: UInt64, width: Int) {
        self.high = high; self.low = low; self.width = width
    }

    /// A 16- or 32-bit UUID on the base UUID.
    public init(short value: UInt32, width: Int) {
        self.init(high: UInt64(value) << 32 | Self.baseHighTail, low: Self.baseLow, width: width)
    }

    /// Reads a UUID of `width` (2, 4 or 16) little-endian bytes at `p[i...]`; the caller checks bounds.
    @inline(__always) static func read(_ p: UnsafeBufferPointer<UInt8>, at i: Int, width: Int) -> BLEUUID {
        switch width {
        case 2: return BLEUUID(short: UInt32(p[i]) | UInt32(p[i + 1]) << 8, width: 2)
        case 4:
            return BLEUUID(short: UInt32(p[i]) | UInt32(p[i + 1]) << 8 | UInt32(p[i + 2]) << 16 | UInt32(p[i + 3]) << 24, width: 4)
        default:
            var hi: UInt64 = 0, lo: UInt64 = 0
            // Byte 15 on air is the most significant.
            for k in 0..<8 { lo |= UInt64(p[i + k]) << (8 * k); hi |= UInt64(p[i + 8 + k]) << (8 * k) }
            return BLEUUID(high: hi, low: lo, width: 16)
        }
    }

    /// The 16- or 32-bit value if this UUID sits on the base UUID (whatever width it was sent in).
    public var shortValue: UInt32? {
        guard low == Self.baseLow, high & 0xFFFF_FFFF == Self.baseHighTail else { return nil }
        return UInt32(truncatingIfNeeded: high >> 32)
    }

    /// The 36-character lower-case form, `0000feaa-0000-1000-8000-00805f9b34fb`.
    public var fullString: String {
        var bytes = [UInt8](repeating: 0, count: 16)
        for k in 0..<8 { bytes[k] = UInt8(truncatingIfNeeded: high >> (56 - 8 * k)); bytes[8 + k] = UInt8(truncatingIfNeeded: low >> (56 - 8 * k)) }
        return Hex.uuidString(bytes)
    }

    /// The `obs.ble` wire form: `feaa` (16-bit), 8 hex digits (32-bit) when on the base UUID,
    /// else the 36-character form (the same rule as `ServiceUUID.shortForm`).
    public var description: String {
        guard let v = shortValue else { return fullString }
        if v <= 0xFFFF { return Hex.string([UInt8(v >> 8), UInt8(v & 0xFF)]) }
        return Hex.string([UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)])
    }
}
