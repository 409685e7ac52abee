import LocusCore

/// Options of the `visits` service. Distances in metres, durations in seconds of event time.
public struct VisitsConfiguration: PluginConfiguration, Equatable {
    /// Fixes within this distance of the stay's centre belong to the stay.
    public var radius: Double
    /// How long the fixes must stay within `radius` before `visit.arrival` is published.
    public var minStay: Double
    /// Longest silence (no usable fix) that can be part of a stay.
    public var maxGap: Double
    /// How long a source must be seen outside `radius` plus its fix accuracy before the visit ends.
    public var departureConfirmation: Double
    /// Fixes whose 1-sigma horizontal accuracy is worse than this are ignored.
    public var maxAccuracy: Double
    /// Fix sources to watch; empty watches all.
    public var sources: [String]

    public static let keys: [ConfigKey] = [
        ConfigKey("radius", "number", default: "100", "Metres: fixes within this distance of the stay's centre belong to the stay."),
        ConfigKey("min_stay", "number", default: "300", "Seconds the fixes must stay within `radius` before visit.arrival is published."),
        ConfigKey("max_gap", "number", default: "43200", "Seconds without a usable fix that can still be part of a stay (12 h); a longer silence ends the visit at its last fix."),
        ConfigKey("departure_confirmation", "number", default: "120", "Seconds a source must be seen beyond `radius` plus its fix accuracy before visit.departure, so a single outlier does not end a visit."),
        ConfigKey("max_accuracy", "number", default: "100", "Metres: fixes with a worse 1-sigma horizontal accuracy (h_accuracy) are ignored; fixes without one are used."),
        ConfigKey("sources", "list of strings", default: "[]", "Fix sources to watch; empty watches all. Each source has its own visits."),
    ]

    enum CodingKeys: String, CodingKey {
        case radius, sources
        case minStay = "min_stay"
        case maxGap = "max_gap"
        case departureConfirmation = "departure_confirmation"
        case maxAccuracy = "max_accuracy"
    }

    public init(radius: Double = 100, minStay: Double = 300, maxGap: Double = 43_200,
                departureConfirmation: Double = 120, maxAccuracy: Double = 100, sources: [String] = []) {
        self.radius = radius
        self.minStay = minStay
        self.maxGap = maxGap
        self.departureConfirmation = departureConfirmation
        self.maxAccuracy = maxAccuracy
        self.sources = sources
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        radius = try c.decodeIfPresent(Double.self, forKey: .radius) ?? radius
        // Below a few metres a stay is indistinguishable from GNSS noise; beyond 10 km it is a region, not a place.
        guard radius >= 5, radius <= 10_000 else {
            throw ConfigValueError(key: "radius", "radius must be between 5 and 10000 m, found \(radius)")
        }
        minStay = try c.decodeIfPresent(Double.self, forKey: .minStay) ?? minStay
        guard minStay > 0, minStay.isFinite else {
            throw ConfigValueError(key: "min_stay", "min_stay must be above 0 s, found \(minStay)")
        }
        maxGap = try c.decodeIfPresent(Double.self, forKey: .maxGap) ?? maxGap
        guard maxGap > 0, maxGap.isFinite else {
            throw ConfigValueError(key: "max_gap", "max_gap must be above 0 s, found \(maxGap)")
        }
        departureConfirmation = try c.decodeIfPresent(Double.self, forKey: .departureConfirmation) ?? departureConfirmation
        // A confirmation as long as max_gap could never be reached without the gap ending the visit first.
        guard departureConfirmation >= 0, departureConfirmation < maxGap else {
            throw ConfigValueError(key: "departure_confirmation",
                                   "departure_confirmation must be at least 0 s and below max_gap (\(maxGap) s), found \(departureConfirmation)")
        }
        maxAccuracy = try c.decodeIfPresent(Double.self, forKey: .maxAccuracy) ?? maxAccuracy
        guard maxAccuracy > 0 else {
            throw ConfigValueError(key: "max_accuracy", "max_accuracy must be above 0 m, found \(maxAccuracy)")
        }
        sources = try c.decodeIfPresent([String].self, forKey: .sources) ?? []
        for s in sources where !Topic.isValidSegment(s) {
            throw ConfigValueError(key: "sources", "'\(s)' in sources is not a source id: use lower-case letters, digits, _ and -")
        }
    }
}
