import LocusCore
import Logging

/// Runs configured services over a recording without sockets, as fast as the CPU allows:
/// `locus replay FILE --config C`, and the entry point of golden-file tests.
///
/// Delivery is deterministic: each item of the recording (messages and recorded-time ticks, see
/// `RecordingTimeline`) goes to every service subscribed to it in config order; events a service
/// emits are delivered, in order, to services subscribed to them before the next input item.
/// So the same recording and config always give byte-identical output.
public struct OfflinePipeline {
    struct Stage {
        var id: String
        var service: any ServicePlugin
        var publisher: EventPublisher
        var outlet: MemoryOutlet
        /// A fresh instance from the same configuration (`restartsServices`).
        var rebuild: () throws -> PluginInstance
        /// The service's state as the runtime would commit it (nil: it keeps none).
        var tracker: ServiceStateTracker?
        var committed: [String: [UInt8]] = [:]
    }

    /// Restarts every `StatefulService` after each message it handles: a fresh instance given
    /// its committed state, as the daemon does after a `kill -9`. Output must not change
    /// (`GoldenCase.run(plugins:restartingServices:)` checks every golden case this way).
    public var restartsServices = false
    /// Restarts made so far.
    public private(set) var restarts = 0

    /// What a stage receives, apart from the stage (routing every message through `stages`
    /// would copy each stage, service included, just to read its subscriptions).
    struct Route {
        var id: String
        /// Read once, as the daemon subscribes once when it starts the service.
        var subscriptions: [String]

        func wants(_ topic: String, from producer: String) -> Bool {
            // A service never receives its own events back: that would loop.
            id != producer && subscriptions.contains { topic.hasPrefix($0) }
        }
    }

    var stages: [Stage]
    let routes: [Route]
    let wantsTicks: Bool
    let registry: PayloadRegistry
    let logger: Logger
    public private(set) var skipped = 0
    public private(set) var inputs = 0

    public init(configuration: LocusConfiguration, registry: PayloadRegistry, logger: Logger) {
        self.registry = registry
        self.logger = logger
        stages = configuration.plugins.compactMap { p in
            guard case .service(let s) = p.instance else { return nil }
            let outlet = MemoryOutlet()
            return Stage(id: p.id, service: s, publisher: EventPublisher(producer: p.id, outlet: outlet), outlet: outlet,
                         rebuild: p.rebuild, tracker: ServiceStateTracker(for: s))
        }
        routes = stages.map { Route(id: $0.id, subscriptions: $0.service.subscriptions) }
        wantsTicks = routes.contains { $0.wants("clock.tick", from: "clock") }
    }

    /// Whether some service would receive a message whose topic starts with `prefix`
    /// (`obs.sky.`): inputs that none would are better not decoded at all.
    public func anyServiceReceives(topicsStartingWith prefix: String) -> Bool {
        routes.contains { r in r.subscriptions.contains { $0.hasPrefix(prefix) || prefix.hasPrefix($0) } }
    }

    /// Plays `timeline`; `emit` receives every service event (topic, envelope body) in order, and
    /// the input messages too when `includeInput` is set.
    public mutating func run(_ timeline: inout RecordingTimeline, includeInput: Bool = false,
                             tickInterval: Double, emit: ([UInt8]) -> Void) throws {
        while let item = timeline.next() {
            try process(item, includeInput: includeInput, tickInterval: tickInterval, emit: emit)
        }
    }

    /// Delivers one item of a timeline (a recorded message or a tick) — for inputs that push
    /// their items (`locus replay` of NMEA, gpsd or GPX files) rather than being pulled.
    /// Messages are re-stamped with producer `replay` and its own sequence, as a replay source
    /// would publish them.
    public mutating func process(_ item: RecordingTimeline.Item, includeInput: Bool = false,
                                 tickInterval: Double, emit: ([UInt8]) -> Void) throws {
        let message: BusMessage
        switch item {
        case .skipped(let line, let reason):
            skipped += 1
            if skipped <= 5 { logger.warning("skipping line of recording", metadata: ["line": "\(line)", "reason": "\(reason)"]) }
            return
        case .tick(let time):
            // No service wants ticks: nothing to do (nobody would see their sequence numbers).
            guard wantsTicks else { return }
            tickSequence += 1
            // The payload as a subscriber decodes it, worked out once: ticks differ only in time
            // and sequence, and a logger switched off for weeks makes millions of them.
            if tickPayload == nil || tickPayloadInterval != tickInterval {
                let body = EnvelopeCodec.encode(ClockTick(basis: .recorded, interval: tickInterval), producer: "clock", seq: 1, time: time)
                tickPayload = try EnvelopeCodec.decode(body, registry: registry).payload
                tickPayloadInterval = tickInterval
            }
            let envelope = Envelope(type: ClockTick.eventType, version: ClockTick.schemaVersion, producer: "clock",
                                    seq: tickSequence, time: time, payload: tickPayload!)
            var w = JSONWriter()
            EnvelopeCodec.encode(envelope, into: &w)
            message = BusMessage(topic: "clock.tick", envelope: envelope, body: w.bytes)
        case .message(let topic, let envelope):
            self.inputs += 1
            inputSequence += 1
            // Messages no service subscribes to (sky views, usually) are only counted. They
            // keep their sequence number, so the others are numbered as a replay source would.
            guard includeInput || routes.contains(where: { $0.wants(topic, from: Self.inputProducer) }) else { return }
            var restamped = envelope
            restamped.producer = Self.inputProducer
            restamped.seq = inputSequence
            var w = JSONWriter()
            EnvelopeCodec.encode(restamped, into: &w)
            let body = w.bytes
            // Decoded from the bytes, as a live service receives it (numbers as the wire rounds them).
            message = try BusMessage(topic: topic, envelope: EnvelopeCodec.decode(body, registry: registry), body: body)
            if includeInput { emit(RecordingLine.encode(topic: topic, body: body)) }
        }
        try deliver(message, emit: emit)
    }

    private var tickSequence: UInt64 = 0
    private var tickPayload: DecodedPayload?
    private var tickPayloadInterval: Double?
    static let inputProducer = "replay"
    private var inputSequence: UInt64 = 0

    mutating func deliver(_ first: BusMessage, emit: ([UInt8]) -> Void) throws {
        var queue = [first]
        var index = 0
        while index < queue.count {
            let message = queue[index]
            index += 1
            for i in stages.indices where routes[i].wants(message.topic, from: message.envelope.producer) {
                var output = ServiceOutput()
                try stages[i].service.receive(message, output: &output)
                if restartsServices, stages[i].tracker != nil { try restart(stage: i) }
                guard !output.events.isEmpty else { continue }
                for e in output.events { stages[i].publisher.publish(e.payload, topic: e.topic, time: e.time) }
                let producer = stages[i].id
                for (topic, body) in stages[i].outlet.take() {
                    emit(RecordingLine.encode(topic: topic, body: body))
                    if routes.contains(where: { $0.wants(topic, from: producer) }) {
                        queue.append(BusMessage(topic: topic, envelope: try EnvelopeCodec.decode(body, registry: registry), body: body))
                    }
                }
            }
        }
    }

    /// Commits stage `i`'s state changes and replaces its service by a fresh instance holding them.
    private mutating func restart(stage i: Int) throws {
        var tracker = stages[i].tracker!
        var service = stages[i].service
        for change in try tracker.changes(in: &service) { stages[i].committed[change.key] = change.value }
        stages[i].service = service
        guard case .service(var fresh) = try stages[i].rebuild(), ServiceStateTracker(for: fresh) != nil else { return }
        tracker = ServiceStateTracker(for: fresh)!
        try tracker.restore(stages[i].committed, into: &fresh)
        stages[i].service = fresh
        stages[i].tracker = tracker
        restarts += 1
    }
}
