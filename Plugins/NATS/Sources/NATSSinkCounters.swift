import LocusCore

/// What a `nats` sink did, cumulative since it started (`locus ctl status`, metrics). The
/// `dropped*` fields are drops by reason and also appear among the daemon's drop counters.
public struct NATSSinkCounters: ZeroedCounters, Equatable {
    /// Events the stream stored.
    public var published = 0
    /// Events the stream had already (same `Nats-Msg-Id` within its duplicate window): another
    /// server, or this one before a restart, sent them first. Not a loss.
    public var duplicates = 0
    public var connects = 0
    public var connectFailures = 0
    /// Publishes that failed (server away, no stream, timeout) and were retried.
    public var publishRetries = 0
    /// Events dropped because `queue_limit` was reached while NATS was away.
    public var droppedQueueFull = 0
    /// Events larger than `max_payload_bytes`.
    public var droppedTooLarge = 0
    /// Events still queued when the sink stopped with NATS away.
    public var droppedAtShutdown = 0
    public init() {}
}
