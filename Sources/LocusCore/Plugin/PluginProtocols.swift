import Logging

public enum PluginKind: String, Sendable, CaseIterable, Codable {
    case source, service, sink
}

/// A producer of observations: a receiver, a daemon client, a scanner, a recording.
///
/// `run(context:)` is called on a task of its own. It publishes through `context` until the task
/// is cancelled (shutdown), then returns promptly — within a few hundred milliseconds, so blocking
/// reads must poll with a timeout and check `Task.isCancelled`. Returning normally means the
/// source is finished (a recording played out) and it is not restarted; throwing means it
/// failed: the runtime reports it on `status.<id>` and restarts it with exponential backoff.
public protocol SourcePlugin: Sendable {
    /// Topic prefixes this source may publish (`obs.fix.<id>`), used to validate subscriptions in config.
    var produces: [String] { get }
    /// True if the source publishes `clock.tick` in its own recorded time; the runtime then does
    /// not tick from the wall clock.
    var drivesClock: Bool { get }
    /// Seconds this source may need, once cancelled, before `run` returns — for a source that
    /// stops an outside process and waits for it. The daemon's shutdown waits for the largest
    /// (sources are stopped together); the default 0 means "the usual few hundred milliseconds".
    var stopTimeout: Double { get }
    func run(context: PluginContext) async throws
}

extension SourcePlugin {
    public var drivesClock: Bool { false }
    public var stopTimeout: Double { 0 }
}

/// A deterministic state machine from observations and ticks to typed events.
///
/// The runtime calls `receive(_:output:)` for every message matching `subscriptions`, one at a
/// time and in bus order, always from the same task. A service must not do I/O, block, or read
/// the wall clock: "now" is `message.time` (observations and `clock.tick` messages both carry
/// event time). That is what makes replays deterministic and services testable without sockets.
/// Throwing is a bug report: the runtime logs it, discards the instance and starts a fresh one.
public protocol ServicePlugin {
    /// Topic prefixes to receive. Include `clock.tick` to be woken up for timeouts.
    var subscriptions: [String] { get }
    /// Topic prefixes this service may publish.
    var produces: [String] { get }
    mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws
}

/// Events a service emits while handling one message; the runtime publishes them in order.
public struct ServiceOutput {
    public struct Event {
        public var topic: String
        public var time: EventTime
        public var payload: any Payload
    }

    public private(set) var events: [Event] = []

    public init() {}

    /// Emits `payload` on `topic` at event time `time` (normally the time of the message being handled).
    public mutating func emit<P: Payload>(_ payload: P, topic: String, time: EventTime) {
        events.append(Event(topic: topic, time: time, payload: payload))
    }

    /// Emits an event another output collected, on `topic` (a wrapper's, e.g. `PerDeviceService`).
    public mutating func append(_ event: Event, topic: String) {
        events.append(Event(topic: topic, time: event.time, payload: event.payload))
    }
}

/// A consumer that delivers messages somewhere outside the bus (console, file, database).
///
/// `run(messages:context:)` is called on a task of its own and must consume `messages` until the
/// stream ends (on shutdown, after the runtime has drained what was already received) and flush
/// what it wrote before returning. Throwing means failure: it is reported and restarted with backoff.
public protocol SinkPlugin: Sendable {
    var subscriptions: [String] { get }
    func run(messages: AsyncStream<BusMessage>, context: PluginContext) async throws
}

/// Where a plugin finds the hub when it must tell an outside program (the `exec` plugin).
public struct HubEndpoints: Sendable, Equatable {
    /// Publishers connect a PUB socket here.
    public var ingest: String
    /// Subscribers connect a SUB socket here.
    public var publish: String
    /// Request/reply control endpoint.
    public var control: String
    /// The catch-up endpoint (docs/protocol.md 13.2); empty when the journal is off.
    public var catchup: String

    public init(ingest: String, publish: String, control: String, catchup: String = "") {
        self.ingest = ingest
        self.publish = publish
        self.control = control
        self.catchup = catchup
    }
}

/// What the runtime hands a plugin when building it from config.
public struct PluginSetup: Sendable {
    public var id: String
    public var kind: PluginKind
    /// Directory of the config file: relative paths in plugin config resolve against it.
    public var configDirectory: String
    public var endpoints: HubEndpoints
    public var logger: Logger
    /// Directory where a plugin may keep state across restarts (`hub.state_directory`), or nil
    /// when nothing may be persisted (`locus replay`, `locus check`, tests): the plugin then
    /// keeps its state in memory only.
    public var stateDirectory: String?
    /// The daemon's journal, or nil when there is none (`hub.journal: false`, `locus replay`,
    /// `locus check`): a plugin that forwards events off the device reads it to lose nothing
    /// while its destination is away.
    public var journal: JournalLocation?
    /// `per_device: true` on a service entry. A `DeviceKeyedService` reads it and keeps one
    /// state per device itself; any other service is wrapped in `PerDeviceService`.
    public var perDevice: Bool
    /// `max_devices` on a service entry (with `per_device`): devices with a state at most. A
    /// message of a further device is dropped and counted (`dropped_too_many_devices`), so a
    /// stream of invented device names cannot grow the service without bound.
    public var maxDevices: Int
    /// `max_devices`'s default.
    public static let defaultMaxDevices = 100_000
    /// The largest envelope the hub forwards (`hub.max_message_bytes`): a plugin that takes
    /// definitions from users (a region's properties) refuses one whose events could never pass.
    public var maxMessageBytes: Int
    /// `hub.max_message_bytes`'s default.
    public static let defaultMaxMessageBytes = 256 * 1024
    /// The ids of the config's enabled sources, whatever the order of the sections: for a sink
    /// that serves only this daemon's own devices to programs outside (`gpsd-server`), since
    /// anyone on the ingest socket may publish `obs.fix.<any id>`. nil when no config made the
    /// setup (tests, embedders).
    public var sourceIds: [String]?

    public init(id: String, kind: PluginKind, configDirectory: String, endpoints: HubEndpoints, logger: Logger,
                stateDirectory: String? = nil, journal: JournalLocation? = nil, perDevice: Bool = false,
                maxDevices: Int = PluginSetup.defaultMaxDevices,
                maxMessageBytes: Int = PluginSetup.defaultMaxMessageBytes, sourceIds: [String]? = nil) {
        self.id = id
        self.kind = kind
        self.configDirectory = configDirectory
        self.endpoints = endpoints
        self.logger = logger
        self.stateDirectory = stateDirectory
        self.journal = journal
        self.perDevice = perDevice
        self.maxDevices = maxDevices
        self.maxMessageBytes = maxMessageBytes
        self.sourceIds = sourceIds
    }

    /// Resolves a path from config against the config file's directory.
    public func resolvePath(_ path: String) -> String {
        if path.hasPrefix("/") || path == "-" { return path }
        return configDirectory.isEmpty ? path : configDirectory + "/" + path
    }
}

/// What a running source or sink sees of the runtime: its id, a logger, and a way to publish.
public struct PluginContext: Sendable {
    public let id: String
    public let logger: Logger
    public let publisher: EventPublisher
    private let statusReporter: @Sendable (PluginStatus.State, String?) -> Void
    private let pacing: (any ConsumerPacing)?
    /// The services' per-device state, for a source that hands devices between servers (a
    /// `nats` source in a group); nil where no service moves device state (`locus replay`, tests).
    public let deviceStates: (any DeviceStateExchange)?

    public init(id: String, logger: Logger, publisher: EventPublisher, pacing: (any ConsumerPacing)? = nil,
                deviceStates: (any DeviceStateExchange)? = nil,
                statusReporter: @escaping @Sendable (PluginStatus.State, String?) -> Void) {
        self.id = id
        self.logger = logger
        self.publisher = publisher
        self.pacing = pacing
        self.deviceStates = deviceStates
        self.statusReporter = statusReporter
    }

    /// For a source that can wait (it reads a file): call before each publish. Returns at once
    /// while the daemon's services and sinks keep up; otherwise when they have caught up, so
    /// nothing is dropped for want of room. Live sources must not call it: a receiver does not
    /// wait, and holding its data back only moves the loss (they drop, counted, instead).
    /// - Throws: `CancellationError` when the source is being stopped.
    public func waitForConsumers() async throws {
        if let pacing { await pacing.waitForConsumers() }
        try Task.checkCancellation()
    }

    public func publish<P: Payload>(_ payload: P, topic: String, time: EventTime) {
        publisher.publish(payload, topic: topic, time: time)
    }

    /// Reports a device-level state change (`connected`, `disconnected`, `no_data`) on `status.<id>`.
    /// Call it on changes only; the runtime does not de-duplicate.
    public func reportStatus(_ state: PluginStatus.State, reason: String? = nil) {
        statusReporter(state, reason)
    }
}

/// A built plugin, ready for the runtime to run.
public enum PluginInstance {
    case source(any SourcePlugin)
    case service(any ServicePlugin)
    case sink(any SinkPlugin)

    public var kind: PluginKind {
        switch self {
        case .source: .source
        case .service: .service
        case .sink: .sink
        }
    }
}
