/// What the condition machine needs of a condition, geographic or beacon: what to report.
public protocol MonitoredCondition {
    /// Lower-case topic segment: events go to `<kind>.enter.<id>` and so on.
    var id: String { get }
    /// Changes when what satisfies the condition changes (a shape, a match): a record of
    /// another fingerprint belongs to another condition and is not kept.
    var fingerprint: String { get }
    var notifyOnEntry: Bool { get }
    var notifyOnExit: Bool { get }
    /// Seconds satisfied before a dwell event; nil for none.
    var dwell: Double? { get }
    var origin: ConditionOrigin { get }
}
