import LocusCore

/// Options of the `significant-change` service. Distances and accuracies in metres (accuracies
/// 1-sigma, as in `obs.fix`), intervals in seconds of event time.
public struct SignificantChangeConfiguration: PluginConfiguration {
    /// Metres from the last published position before the next `location.significant`.
    public var minDistance: Double
    /// Seconds after the last published position before the next `location.significant`.
    public var minInterval: Double
    /// Fixes whose `h_accuracy` is above this, or unknown, are ignored; 0 = no limit.
    public var maxHorizontalAccuracy: Double
    /// Fix sources to use; empty uses all.
    public var sources: [String]

    public static let keys: [ConfigKey] = [
        ConfigKey("min_distance", "number", default: "500", "Metres the device must have moved from the last published position (Core Location's 500 m)."),
        ConfigKey("min_interval", "number", default: "300", "Seconds that must have passed since the last published position (Core Location's 5 minutes); 0 = no minimum."),
        ConfigKey("max_horizontal_accuracy", "number", default: "100", "Fixes with h_accuracy (1-sigma, m) above this, or without h_accuracy, are ignored so that a bad jump does not count as a move; 0 = no limit."),
        ConfigKey("sources", "list of strings", default: "[]", "Fix sources to use; empty uses all."),
    ]

    enum CodingKeys: String, CodingKey { case min_distance, min_interval, max_horizontal_accuracy, sources }

    public init(minDistance: Double = 500, minInterval: Double = 300, maxHorizontalAccuracy: Double = 100, sources: [String] = []) {
        self.minDistance = minDistance
        self.minInterval = minInterval
        self.maxHorizontalAccuracy = maxHorizontalAccuracy
        self.sources = sources
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        minDistance = try c.decodeIfPresent(Double.self, forKey: .min_distance) ?? 500
        guard minDistance.isFinite, minDistance > 0 else {
            throw ConfigValueError(key: "min_distance", "min_distance must be above 0 m, found \(minDistance)")
        }
        minInterval = try c.decodeIfPresent(Double.self, forKey: .min_interval) ?? 300
        guard minInterval.isFinite, minInterval >= 0 else {
            throw ConfigValueError(key: "min_interval", "min_interval must be at least 0 s, found \(minInterval)")
        }
        maxHorizontalAccuracy = try c.decodeIfPresent(Double.self, forKey: .max_horizontal_accuracy) ?? 100
        guard maxHorizontalAccuracy.isFinite, maxHorizontalAccuracy >= 0 else {
            throw ConfigValueError(key: "max_horizontal_accuracy", "max_horizontal_accuracy must be at least 0 m (0 = no limit), found \(maxHorizontalAccuracy)")
        }
        sources = try c.decodeIfPresent([String].self, forKey: .sources) ?? []
        var seen: Set<String> = []
        for s in sources {
            guard Topic.isValidSegment(s) else {
                throw ConfigValueError(key: "sources", "source '\(s)' is not a valid source id (1 to 64 of a-z, 0-9, '_', '-')")
            }
            guard seen.insert(s).inserted else { throw ConfigValueError(key: "sources", "source '\(s)' is listed twice") }
        }
    }

    /// True if `fix` meets `max_horizontal_accuracy`. A fix that does not say how accurate it is
    /// cannot show that its jump is real, so it fails any limit that is set.
    func meetsAccuracy(_ fix: Fix) -> Bool {
        guard maxHorizontalAccuracy > 0 else { return true }
        guard let h = fix.horizontalAccuracy else { return false }
        return h <= maxHorizontalAccuracy
    }
}
