import LocusCore

/// The value of a lease key (`partition.<n>` or `member.<id>`): who holds it, with which epoch,
/// until when (milliseconds since the epoch, the holder's clock). Servers of a group are assumed
/// to keep their clocks within a small fraction of the lease time of each other (NTP does).
public struct Lease: Equatable, Sendable {
    public var owner: String
    /// Counts up each time the partition changes hands: a checkpoint or a message written under
    /// an older epoch is a zombie's and is refused.
    public var epoch: UInt64
    public var expiresMs: Int64

    public init(owner: String, epoch: UInt64, expiresMs: Int64) {
        self.owner = owner
        self.epoch = epoch
        self.expiresMs = expiresMs
    }

    public var bytes: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.field("owner", owner)
        w.key("epoch"); w.uint64(epoch)
        w.key("expires_ms"); w.int(expiresMs)
        w.endObject()
        return w.bytes
    }

    /// The lease `bytes` holds; nil for anything else (a key written by something other than a
    /// Locus server is treated as free once its revision can be replaced).
    public init?(bytes: [UInt8]) {
        guard let value = try? JSONValue.decode(bytes), let owner = value["owner"]?.stringValue,
              let epoch = value["epoch"]?.doubleValue, epoch >= 0, epoch < 9.0e15,
              let expires = value["expires_ms"]?.doubleValue, abs(expires) < 9.0e15 else { return nil }
        self.init(owner: owner, epoch: UInt64(epoch), expiresMs: Int64(expires))
    }
}
