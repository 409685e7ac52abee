import LocusCore

/// Options of the `significant-change` service. Distances and accuracies in metres (accuracies
/// 1-sigma, as in `obs.fix`), intervals in seconds of event time.
public struct SignificantChangeConfiguration: DeclaredConfiguration {
    /// Metres from the last published position before the next `location.significant`.
    @Setting("min_distance", "Metres the device must have moved from the last published position (Core Location's 500 m).",
             check: .above(0, unit: "m"))
    public var minDistance: Double = 500

    /// Seconds after the last published position before the next `location.significant`.
    @Setting("min_interval", "Seconds that must have passed since the last published position (Core Location's 5 minutes); 0 = no minimum.",
             check: .atLeast(0, unit: "s"))
    public var minInterval: Double = 300

    /// Fixes whose `h_accuracy` is above this, or unknown, are ignored; 0 = no limit.
    @Setting("max_horizontal_accuracy", "Fixes with h_accuracy (1-sigma, m) above this, or without h_accuracy, are ignored so that a bad jump does not count as a move; 0 = no limit.",
             check: .atLeast(0, unit: "m (0 = no limit)"))
    public var maxHorizontalAccuracy: Double = 100

    /// Fix sources to use; empty uses all.
    @Setting("sources", "Fix sources to use; empty uses all.", check: .sourceIds)
    public var sources: [String] = []

    public init() {}

    /// True if `fix` meets `max_horizontal_accuracy`. A fix that does not say how accurate it is
    /// cannot show that its jump is real, so it fails any limit that is set.
    func meetsAccuracy(_ fix: Fix) -> Bool {
        guard maxHorizontalAccuracy > 0 else { return true }
        guard let h = fix.horizontalAccuracy else { return false }
        return h <= maxHorizontalAccuracy
    }
}
