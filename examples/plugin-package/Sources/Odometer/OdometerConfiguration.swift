import LocusCore

/// Options of the `odometer` service.
public struct OdometerConfiguration: PluginConfiguration {
    public var every: Double
    public var minStep: Double
    public var maxAccuracy: Double
    public var sources: [String]

    public static let keys: [ConfigKey] = [
        ConfigKey("every", "number", default: "1000", "Metres between two readings of a source."),
        ConfigKey("min_step", "number", default: "5", "A fix counts once it is this many metres from the last one counted, so a standing receiver's jitter adds nothing."),
        ConfigKey("max_accuracy", "number", default: "50", "Fixes whose horizontal accuracy is worse than this many metres are skipped."),
        ConfigKey("sources", "list of strings", default: "[]", "Fix sources to measure; empty measures all."),
    ]

    enum CodingKeys: String, CodingKey {
        case every, sources
        case minStep = "min_step"
        case maxAccuracy = "max_accuracy"
    }

    public init(every: Double = 1000, minStep: Double = 5, maxAccuracy: Double = 50, sources: [String] = []) {
        self.every = every
        self.minStep = minStep
        self.maxAccuracy = maxAccuracy
        self.sources = sources
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        every = try c.decodeIfPresent(Double.self, forKey: .every) ?? 1000
        guard every > 0 else { throw ConfigValueError(key: "every", "every must be above 0 metres, found \(every)") }
        minStep = try c.decodeIfPresent(Double.self, forKey: .minStep) ?? 5
        guard minStep >= 0 else { throw ConfigValueError(key: "min_step", "min_step must be at least 0 metres, found \(minStep)") }
        maxAccuracy = try c.decodeIfPresent(Double.self, forKey: .maxAccuracy) ?? 50
        guard maxAccuracy > 0 else { throw ConfigValueError(key: "max_accuracy", "max_accuracy must be above 0 metres, found \(maxAccuracy)") }
        sources = try c.decodeIfPresent([String].self, forKey: .sources) ?? []
    }
}
