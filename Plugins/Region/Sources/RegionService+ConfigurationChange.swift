import LocusCore

/// What a restart with a changed configuration does to the saved state (issue 50): fences are
/// compared by their fingerprint (shape, hysteresis inputs), so a fence whose shape changed, or
/// that is new, starts `unknown` for every device and is decided by the next fix; a removed
/// fence's states are deleted; every other fence keeps its state.
extension RegionService: ExplainsConfigurationChange {
    public var stateAfterConfigurationChange: String {
        let c = fenceChanges
        guard !c.isEmpty else { return "no fence changed shape, so every fence keeps its saved state" }
        func list(_ ids: [String]) -> String { ids.prefix(5).joined(separator: ", ") + (ids.count > 5 ? ", … (\(ids.count))" : "") }
        var parts: [String] = []
        if !c.reshaped.isEmpty { parts.append("fences whose shape changed (\(list(c.reshaped))) start unknown") }
        if !c.added.isEmpty { parts.append("new fences (\(list(c.added))) start unknown") }
        if !c.removed.isEmpty { parts.append("the states of removed fences (\(list(c.removed))) are deleted") }
        return parts.joined(separator: "; ") + "; every other fence keeps its saved state"
    }
}

/// Fences that differ from those saved with the state: reshaped, new, removed (ids, sorted).
struct FenceChanges: Equatable {
    var reshaped: [String] = []
    var added: [String] = []
    var removed: [String] = []
    var isEmpty: Bool { reshaped.isEmpty && added.isEmpty && removed.isEmpty }
}
