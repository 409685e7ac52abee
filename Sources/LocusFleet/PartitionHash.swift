/// Which partition a device belongs to: FNV-1a (32 bit) of the device id's UTF-8 bytes, modulo
/// the partition count. Every server of a group computes the same, so a device's fixes always go
/// to the partition — and the server — that keeps its state. Documented in the README's
/// "Fleets" section: a client that routes fixes itself can compute it too.
public enum PartitionHash {
    static let offsetBasis: UInt32 = 0x811C_9DC5
    static let prime: UInt32 = 0x0100_0193

    /// FNV-1a of `bytes` (the 32-bit variant of Fowler, Noll and Vo).
    public static func fnv1a<Bytes: Sequence>(_ bytes: Bytes) -> UInt32 where Bytes.Element == UInt8 {
        var h = offsetBasis
        for b in bytes {
            h ^= UInt32(b)
            h = h &* prime
        }
        return h
    }

    /// The partition of `device`, in `0..<count`.
    public static func partition(of device: String, count: Int) -> Int {
        precondition(count > 0, "a group has at least one partition")
        return Int(fnv1a(device.utf8) % UInt32(count))
    }
}
