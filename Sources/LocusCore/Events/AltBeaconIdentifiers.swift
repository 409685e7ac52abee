/// An AltBeacon id as its ecosystem writes it: the Android Beacon Library (AltBeacon's
/// reference implementation) knows a standard 20-byte beacon id as `id1` (the first 16 bytes,
/// written as a UUID), `id2` and `id3` (the next two 16-bit big-endian integers).
public struct AltBeaconIdentifiers: Sendable, Equatable, Hashable {
    /// Lower-case 8-4-4-4-12.
    public var id1: String
    public var id2: Int
    public var id3: Int

    public init(id1: String, id2: Int, id3: Int) {
        self.id1 = id1
        self.id2 = id2
        self.id3 = id3
    }

    /// The split of a beacon id of 40 hex digits (a standard frame); nil for any other.
    public init?(beaconID hex: String) {
        let h = Array(hex.lowercased().utf8)
        guard h.count == 40, h.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }) else { return nil }
        let uuid = Self.dashedUUID(String(decoding: h[0..<32], as: UTF8.self))
        func int(_ r: Range<Int>) -> Int { Int(String(decoding: h[r], as: UTF8.self), radix: 16)! }
        self.init(id1: uuid, id2: int(32..<36), id3: int(36..<40))
    }

    /// 32 hex digits as 8-4-4-4-12, the form UUIDs are written in (iBeacon's, AltBeacon's id1).
    public static func dashedUUID(_ hex: String) -> String {
        var out = ""
        for (i, c) in hex.enumerated() {
            if i == 8 || i == 12 || i == 16 || i == 20 { out.append("-") }
            out.append(c)
        }
        return out
    }
}
