/// A hash of a text that is the same in every build and on every machine (Swift's `Hasher` is
/// seeded per process): names a config's state directory and fingerprints a configuration.
enum StableHash {
    /// FNV-1a, 64 bits, of `text`'s UTF-8 bytes, as 16 lower-case hex digits.
    static func hex(_ text: String) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in text.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}
