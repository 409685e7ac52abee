import LocusCore

/// The value of a lease key (`partition.<n>` or `member.<id>`): who holds it (`""`: nobody, the
/// partition was given back), with which epoch, and until when by the holder's wall clock
/// (milliseconds since 1970).
///
/// `expires_ms` is information for people reading the bucket, nothing more: readers judge a
/// lease by whether its key's revision changed within `lease_ttl` of their own clock
/// (`LeaseObservations`), never by a time another machine wrote.
public struct Lease: Equatable, Sendable {
    public var owner: String
    /// Counts up each time the partition changes hands: a checkpoint or a message written under
    /// an older epoch is a zombie's and is refused.
    public var epoch: UInt64
    public var expiresMs: Int64
    /// On a partition given back (`owner` ""): who gave it back, so its next owner can say from
    /// whom it came (information only; written as `released_by`, absent otherwise).
    public var releasedBy: String

    public init(owner: String, epoch: UInt64, expiresMs: Int64, releasedBy: String = "") {
        self.owner = owner
        self.epoch = epoch
        self.expiresMs = expiresMs
        self.releasedBy = releasedBy
    }

    /// How far ahead of a reader's wall clock an `expires_ms` may be before it names an impossible
    /// expiry (a writer's clock far ahead, or a forged value): the longest `lease_ttl` (600 s)
    /// and an hour of clock difference.
    public static let plausibleAheadMs: Int64 = 600_000 + 3_600_000

    /// False when `expiresMs` cannot come from a server of the group whose clock is near the
    /// reader's `wallMs`: negative, or further ahead than `plausibleAheadMs`. Such a value is
    /// counted; the lease is judged like any other, by its revision.
    public func isPlausible(wallMs: Int64) -> Bool {
        expiresMs >= 0 && expiresMs <= wallMs + Self.plausibleAheadMs
    }

    public var bytes: [UInt8] {
        var w = JSONWriter()
        w.beginObject()
        w.field("owner", owner)
        w.key("epoch"); w.uint64(epoch)
        w.key("expires_ms"); w.int(expiresMs)
        if !releasedBy.isEmpty { w.field("released_by", releasedBy) }
        w.endObject()
        return w.bytes
    }

    /// The lease `bytes` holds; nil for anything else (a key written by something other than a
    /// Locus server: counted, and taken like a lease nobody renews, `lease_ttl` after it was first
    /// seen at its revision).
    public init?(bytes: [UInt8]) {
        guard let value = try? JSONValue.decode(bytes), let owner = value["owner"]?.stringValue,
              let epoch = value["epoch"]?.doubleValue, epoch >= 0, epoch < 9.0e15,
              let expires = value["expires_ms"]?.doubleValue, abs(expires) < 9.0e15 else { return nil }
        // At most a member id's worth: a foreign writer's long text is not kept.
        let releasedBy = value["released_by"]?.stringValue.map { String($0.prefix(256)) } ?? ""
        self.init(owner: owner, epoch: UInt64(epoch), expiresMs: Int64(expires), releasedBy: releasedBy)
    }
}
