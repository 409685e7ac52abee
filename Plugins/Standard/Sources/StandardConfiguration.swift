import LocusCore

/// Options of the `standard` location service. Every duration is in seconds of event time,
/// every distance and accuracy in metres (accuracies 1-sigma, as in `obs.fix`).
public struct StandardConfiguration: PluginConfiguration {
    /// Fix sources to use, most preferred first; empty uses every source, all equally preferred.
    public var sources: [String]
    /// Publish only after moving at least this far from the last published location; 0 = every fix.
    public var distanceFilter: Double
    /// Publish at most once per this many seconds; 0 = no limit.
    public var minInterval: Double
    /// Publish the next accepted fix regardless of `distanceFilter` once nothing was published
    /// for this long; 0 = never.
    public var maxInterval: Double
    /// Fixes whose `h_accuracy` is above this, or unknown, are not used; 0 = no limit.
    public var maxHorizontalAccuracy: Double
    /// Seconds without a fix after which a source counts as silent.
    public var sourceTimeout: Double
    /// Seconds without a usable fix before `location_unavailable` is reported.
    public var unavailableAfter: Double
    /// Seconds the device must stay within its uncertainty before `is_stationary` is true.
    public var stationaryTime: Double
    /// Smallest radius, metres, within which the device counts as not moving.
    public var stationaryRadius: Double
    /// Stop publishing `location.update` while stationary.
    public var pauseWhenStationary: Bool

    public static let keys: [ConfigKey] = [
        ConfigKey("sources", "list of strings", default: "[]", "Fix sources to use, most preferred first (the preference breaks ties between equally accurate fixes); empty uses every source, all equally preferred."),
        ConfigKey("distance_filter", "number", default: "0", "Metres the device must move from the last published location before the next update; 0 publishes every accepted fix."),
        ConfigKey("min_interval", "number", default: "0", "Seconds: publish at most this often; 0 = no limit."),
        ConfigKey("max_interval", "number", default: "0", "Seconds: when nothing was published for this long, the next accepted fix is published even if distance_filter holds it back; 0 = never."),
        ConfigKey("max_horizontal_accuracy", "number", default: "100", "Fixes with h_accuracy (1-sigma, m) above this, or without h_accuracy, are not used; 0 = no limit."),
        ConfigKey("source_timeout", "number", default: "10", "Seconds without a fix after which a source is dropped (the next source takes over) and source_disconnected is reported."),
        ConfigKey("unavailable_after", "number", default: "10", "Seconds without a usable fix before location_unavailable (and, if only too inaccurate fixes came, accuracy_limited) is reported."),
        ConfigKey("stationary_time", "number", default: "60", "Seconds the device must stay within its uncertainty circle before is_stationary is true."),
        ConfigKey("stationary_radius", "number", default: "5", "Smallest radius in metres within which the device counts as not moving; the radius used is the larger of this and the sum of the two fixes' h_accuracy."),
        ConfigKey("pause_when_stationary", "boolean", default: "false", "Stop publishing location.update while stationary; location.paused and location.resumed mark the pause."),
    ]

    enum CodingKeys: String, CodingKey {
        case sources, distance_filter, min_interval, max_interval, max_horizontal_accuracy
        case source_timeout, unavailable_after, stationary_time, stationary_radius, pause_when_stationary
    }

    public init(sources: [String] = [], distanceFilter: Double = 0, minInterval: Double = 0, maxInterval: Double = 0,
                maxHorizontalAccuracy: Double = 100, sourceTimeout: Double = 10, unavailableAfter: Double = 10,
                stationaryTime: Double = 60, stationaryRadius: Double = 5, pauseWhenStationary: Bool = false) {
        self.sources = sources
        self.distanceFilter = distanceFilter
        self.minInterval = minInterval
        self.maxInterval = maxInterval
        self.maxHorizontalAccuracy = maxHorizontalAccuracy
        self.sourceTimeout = sourceTimeout
        self.unavailableAfter = unavailableAfter
        self.stationaryTime = stationaryTime
        self.stationaryRadius = stationaryRadius
        self.pauseWhenStationary = pauseWhenStationary
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        func number(_ key: CodingKeys, _ fallback: Double, positive: Bool = false) throws -> Double {
            let v = try c.decodeIfPresent(Double.self, forKey: key) ?? fallback
            guard v.isFinite, positive ? v > 0 : v >= 0 else {
                throw ConfigValueError(key: key.rawValue, "\(key.rawValue) must be \(positive ? "above" : "at least") 0, found \(v)")
            }
            return v
        }
        sources = try c.decodeIfPresent([String].self, forKey: .sources) ?? []
        try SourceList.validate(sources, key: CodingKeys.sources.rawValue)
        distanceFilter = try number(.distance_filter, 0)
        minInterval = try number(.min_interval, 0)
        maxInterval = try number(.max_interval, 0)
        if maxInterval > 0, maxInterval < minInterval {
            throw ConfigValueError(key: CodingKeys.max_interval.rawValue,
                                   "max_interval (\(maxInterval) s) must not be below min_interval (\(minInterval) s); use 0 to turn it off")
        }
        maxHorizontalAccuracy = try number(.max_horizontal_accuracy, 100)
        sourceTimeout = try number(.source_timeout, 10, positive: true)
        unavailableAfter = try number(.unavailable_after, 10, positive: true)
        stationaryTime = try number(.stationary_time, 60, positive: true)
        stationaryRadius = try number(.stationary_radius, 5)
        pauseWhenStationary = try c.decodeIfPresent(Bool.self, forKey: .pause_when_stationary) ?? false
    }

    /// True if `fix` meets `max_horizontal_accuracy`. A fix that does not say how accurate it
    /// is cannot show that it meets a limit, so it fails any limit that is set.
    func meetsAccuracy(_ fix: Fix) -> Bool {
        guard maxHorizontalAccuracy > 0 else { return true }
        guard let h = fix.horizontalAccuracy else { return false }
        return h <= maxHorizontalAccuracy
    }
}
