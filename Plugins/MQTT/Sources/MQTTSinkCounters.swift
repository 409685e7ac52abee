import LocusCore

/// What an `mqtt` sink did, cumulative since it started (`locus ctl status`, metrics). The
/// `dropped*` fields are drops by reason and also appear among the daemon's drop counters
/// (`<id>.queue_full`, …) and in `status.drops`.
public struct MQTTSinkCounters: ZeroedCounters, Equatable {
    /// Messages handed to the broker (first sends; a resend after a reconnect is not counted again).
    public var published = 0
    /// Messages the broker acknowledged (QoS 1 and 2), or written (QoS 0).
    public var acknowledged = 0
    /// Successful connections (CONNACK accepted).
    public var connects = 0
    /// Attempts that failed: unreachable, refused (wrong credentials, …), TLS errors.
    public var connectFailures = 0
    /// Connections lost after they were up.
    public var disconnects = 0
    /// Live messages (topics the journal does not take) dropped because `queue_limit` was reached.
    public var droppedQueueFull = 0
    /// Messages larger than `max_payload_bytes` or than the broker takes.
    public var droppedTooLarge = 0
    /// Messages the broker refused with an MQTT 5 reason code (not authorised, quota, …).
    public var droppedByBroker = 0
    /// Journal records deleted by retention before they could be sent (the broker was away longer than the journal keeps).
    public var droppedRetention = 0
    /// Live messages still queued when the sink stopped with the broker away.
    public var droppedAtShutdown = 0
    /// Events with no OwnTracks form (format owntracks): not sent, by design, not a loss.
    public var notConverted = 0
    /// Damaged journal records skipped.
    public var journalDamaged = 0
    public init() {}
}
