/// A condition's state, as `CLMonitor.Event.State`.
public enum BeaconState: String, Sendable, Equatable {
    /// Not decided yet: no matching beacon heard, and `exit_timeout` has not passed since monitoring began.
    case unknown
    /// A matching beacon was heard within `exit_timeout`.
    case satisfied
    /// None heard for `exit_timeout`.
    case unsatisfied
}
