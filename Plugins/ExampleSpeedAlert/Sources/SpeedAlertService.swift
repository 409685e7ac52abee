import LocusCore

/// Options of the `example-speed-alert` service.
public struct SpeedAlertConfiguration: PluginConfiguration {
    public var limit: Double
    public var hysteresis: Double
    public var sources: [String]

    public static let keys: [ConfigKey] = [
        ConfigKey("limit", "number", default: "13.9", "Speed limit in m/s (13.9 m/s = 50 km/h)."),
        ConfigKey("hysteresis", "number", default: "1.0", "m/s below the limit the speed must fall before `under` is published, so noise near the limit does not flap."),
        ConfigKey("sources", "list of strings", default: "[]", "Fix sources to watch; empty watches all."),
    ]

    enum CodingKeys: String, CodingKey { case limit, hysteresis, sources }

    public init(limit: Double = 13.9, hysteresis: Double = 1.0, sources: [String] = []) {
        self.limit = limit
        self.hysteresis = hysteresis
        self.sources = sources
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        limit = try c.decodeIfPresent(Double.self, forKey: .limit) ?? 13.9
        guard limit > 0 else { throw ConfigValueError(key: "limit", "limit must be above 0 m/s, found \(limit)") }
        hysteresis = try c.decodeIfPresent(Double.self, forKey: .hysteresis) ?? 1.0
        guard hysteresis >= 0, hysteresis < limit else {
            throw ConfigValueError(key: "hysteresis", "hysteresis must be at least 0 and below the limit, found \(hysteresis)")
        }
        sources = try c.decodeIfPresent([String].self, forKey: .sources) ?? []
    }
}

/// A template service: watches fixes and publishes when a source's speed goes over a limit and
/// when it falls back under it. Copy this folder to start a plugin of your own.
///
/// Like every service it is a pure state machine: fixes in, events out, time taken from the
/// messages. No I/O, no wall clock, so it is tested by feeding it messages (see PluginTests).
public struct SpeedAlertService: ServicePlugin {
    public let id: String
    public let configuration: SpeedAlertConfiguration
    /// Per source: whether it is currently over the limit.
    private var over: [String: Bool] = [:]

    public init(id: String, configuration: SpeedAlertConfiguration) {
        self.id = id
        self.configuration = configuration
    }

    public var subscriptions: [String] {
        configuration.sources.isEmpty ? ["obs.fix."] : configuration.sources.map { "obs.fix.\($0)" }
    }

    public var produces: [String] { ["example.speed_alert.\(id)"] }

    public mutating func receive(_ message: BusMessage, output: inout ServiceOutput) {
        guard let fix = message.payload(Fix.self), fix.hasPosition, let speed = fix.speed else { return }
        // Subscriptions are topic prefixes: `obs.fix.gps1` also delivers `obs.fix.gps10`.
        guard configuration.sources.isEmpty || configuration.sources.contains(fix.source) else { return }
        let wasOver = over[fix.source] ?? false
        let isOver = wasOver ? speed > configuration.limit - configuration.hysteresis : speed > configuration.limit
        guard isOver != wasOver else { return }
        over[fix.source] = isOver
        // The first fix of a source only reports if it starts over the limit: "under" is the assumed state.
        output.emit(SpeedAlert(source: fix.source, state: isOver ? .over : .under, speed: speed, limit: configuration.limit),
                    topic: "example.speed_alert.\(id)", time: message.time)
    }
}

public enum ExampleSpeedAlertPlugin {
    public static let factory = PluginFactory.service(
        "example-speed-alert",
        summary: "Template service: publishes example.speed_alert when a fix source's speed crosses a limit.",
        config: SpeedAlertConfiguration.self,
        payloadTypes: [SpeedAlert.self]
    ) { config, setup in
        SpeedAlertService(id: setup.id, configuration: config)
    }
}
