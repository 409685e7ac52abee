import LocusCore

/// Options of the `example-speed-alert` service. Each key is declared once, on its property:
/// name, doc line, default (the initial value) and check; decoding, `locus plugins` and the
/// README check read these declarations.
public struct SpeedAlertConfiguration: DeclaredConfiguration {
    @Setting("limit", "Speed limit in m/s (13.9 m/s = 50 km/h).", check: .above(0, unit: "m/s"))
    public var limit: Double = 13.9

    @Setting("hysteresis", "m/s below the limit the speed must fall before `under` is published, so noise near the limit does not flap.",
             check: .atLeast(0))
    public var hysteresis: Double = 1.0

    @Setting("sources", "Fix sources to watch; empty watches all.")
    public var sources: [String] = []

    public init() {}

    public func validate() throws {
        guard hysteresis < limit else {
            throw ConfigValueError(key: "hysteresis", "hysteresis must be below the limit (\(limit.settingText) m/s), found \(hysteresis.settingText)")
        }
    }
}

/// A template service: watches fixes and publishes when a source's speed goes over a limit and
/// when it falls back under it. Copy this folder to start a plugin of your own.
///
/// Like every service it is a pure state machine: fixes in, events out, time taken from the
/// messages. No I/O, no wall clock, so it is tested by feeding it messages (see PluginTests).
///
/// A `StatefulService`: what it remembers between messages is `state`, which the runtime keeps
/// across restarts, so a source over the limit is not reported over again after a restart.
public struct SpeedAlertService: StatefulService {
    public let id: String
    public let configuration: SpeedAlertConfiguration
    /// Per source: whether it is currently over the limit.
    private var over: [String: Bool] = [:]

    /// Everything the service remembers: per source, whether it is over the limit.
    public var state: [String: Bool] {
        get { over }
        set { over = newValue }
    }

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
