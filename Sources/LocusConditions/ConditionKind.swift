/// What one kind of condition (geographic, beacon) keeps once per `ConditionMonitor`, beside
/// the conditions themselves: its settings and the index that finds the conditions an input
/// may concern, so that an input is not tested against every condition.
///
/// An implementer keeps its index in step with the monitor's conditions: the monitor calls
/// `put` and `remove` for every change, before it tells the devices.
public protocol ConditionKind {
    associatedtype Condition: MonitoredCondition
    /// The first word of the kind's event types (`region`, `beacon`).
    static var eventPrefix: String { get }
    /// `condition` was added, or replaces `old` (the same id).
    mutating func put(_ condition: Condition, replacing old: Condition?)
    mutating func remove(_ condition: Condition)
}
