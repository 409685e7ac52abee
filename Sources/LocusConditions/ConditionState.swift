/// A condition's state, as `CLMonitor.Event.State`: the same three for a geographic condition
/// (`region`) and a beacon condition (`beacon`).
public enum ConditionState: String, Sendable, Equatable, Codable {
    /// Not decided yet: no deciding input, and no `assuming` given.
    case unknown
    /// Inside the region; a matching beacon heard within `exit_timeout`.
    case satisfied
    /// Outside; none heard for `exit_timeout`.
    case unsatisfied

    /// The opposite decided state.
    public var opposite: ConditionState {
        switch self {
        case .satisfied: .unsatisfied
        case .unsatisfied: .satisfied
        case .unknown: .unknown
        }
    }
}
