import LocusCore

/// Options of the `standard` location service. Every duration is in seconds of event time,
/// every distance and accuracy in metres (accuracies 1-sigma, as in `obs.fix`).
public struct StandardConfiguration: DeclaredConfiguration {
    /// Fix sources to use, most preferred first; empty uses every source, all equally preferred.
    @Setting("sources", "Fix sources to use, most preferred first (the preference breaks ties between equally accurate fixes); empty uses every source, all equally preferred.",
             check: .sourceIds)
    public var sources: [String] = []

    /// Publish only after moving at least this far from the last published location; 0 = every fix.
    @Setting("distance_filter", "Metres the device must move from the last published location before the next update; 0 publishes every accepted fix.",
             check: .atLeast(0))
    public var distanceFilter: Double = 0

    /// Publish at most once per this many seconds; 0 = no limit.
    @Setting("min_interval", "Seconds: publish at most this often; 0 = no limit.", check: .atLeast(0))
    public var minInterval: Double = 0

    /// Publish the next accepted fix regardless of `distanceFilter` once nothing was published
    /// for this long; 0 = never.
    @Setting("max_interval", "Seconds: when nothing was published for this long, the next accepted fix is published even if distance_filter holds it back; 0 = never.",
             check: .atLeast(0))
    public var maxInterval: Double = 0

    /// Fixes whose `h_accuracy` is above this, or unknown, are not used; 0 = no limit.
    @Setting("max_horizontal_accuracy", "Fixes with h_accuracy (1-sigma, m) above this, or without h_accuracy, are not used; 0 = no limit.",
             check: .atLeast(0))
    public var maxHorizontalAccuracy: Double = 100

    /// Seconds without a fix after which a source counts as silent.
    @Setting("source_timeout", "Seconds without a fix after which a source is dropped (the next source takes over) and source_disconnected is reported.",
             check: .above(0))
    public var sourceTimeout: Double = 10

    /// Seconds without a usable fix before `location_unavailable` is reported.
    @Setting("unavailable_after", "Seconds without a usable fix before location_unavailable (and, if only too inaccurate fixes came, accuracy_limited) is reported.",
             check: .above(0))
    public var unavailableAfter: Double = 10

    /// Seconds the device must stay within its uncertainty before `is_stationary` is true.
    @Setting("stationary_time", "Seconds the device must stay within its uncertainty circle before is_stationary is true.", check: .above(0))
    public var stationaryTime: Double = 60

    /// Smallest radius, metres, within which the device counts as not moving.
    @Setting("stationary_radius", "Smallest radius in metres within which the device counts as not moving; the radius used is the larger of this and the sum of the two fixes' h_accuracy.",
             check: .atLeast(0))
    public var stationaryRadius: Double = 5

    /// Stop publishing `location.update` while stationary.
    @Setting("pause_when_stationary", "Stop publishing location.update while stationary; location.paused and location.resumed mark the pause.")
    public var pauseWhenStationary: Bool = false

    public init() {}

    public func validate() throws {
        if maxInterval > 0, maxInterval < minInterval {
            throw ConfigValueError(key: "max_interval",
                                   "max_interval (\(maxInterval.settingText) s) must not be below min_interval (\(minInterval.settingText) s); use 0 to turn it off")
        }
    }

    /// True if `fix` meets `max_horizontal_accuracy`. A fix that does not say how accurate it
    /// is cannot show that it meets a limit, so it fails any limit that is set.
    func meetsAccuracy(_ fix: Fix) -> Bool {
        guard maxHorizontalAccuracy > 0 else { return true }
        guard let h = fix.horizontalAccuracy else { return false }
        return h <= maxHorizontalAccuracy
    }
}
