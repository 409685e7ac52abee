/// What the daemon dropped lately (`status.drops`, topic `status.locus.drops`): published by
/// the runtime at most once per `hub.status_interval`, and only when a drop counter moved.
/// Counters are named `place.reason`: `hub.<reason>` (docs/protocol.md 7), `control.<refusal>`,
/// `<plugin>.slow_consumer`, `<plugin>.undecodable`, `<plugin>.send_dropped`.
public struct DropReport: Payload, Equatable {
    public static let eventType = "status.drops"
    public static let schemaVersion = 1

    /// Seconds of wall time since the previous report (or the daemon's start).
    public var interval: Double
    /// What each counter that moved counted in that time.
    public var dropped: [String: UInt64]
    /// Every non-zero counter since the daemon started.
    public var totals: [String: UInt64]

    public init(interval: Double, dropped: [String: UInt64], totals: [String: UInt64]) {
        self.interval = interval
        self.dropped = dropped
        self.totals = totals
    }
}
