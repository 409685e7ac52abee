/// A condition's state, as `CLMonitor.Event.State`.
public enum RegionState: String, Sendable, Equatable, Codable {
    /// No usable fix has decided it yet (and no `assuming` was given).
    case unknown
    /// Inside.
    case satisfied
    /// Outside.
    case unsatisfied

    /// The opposite decided state.
    var opposite: RegionState {
        switch self {
        case .satisfied: .unsatisfied
        case .unsatisfied: .satisfied
        case .unknown: .unknown
        }
    }
}
