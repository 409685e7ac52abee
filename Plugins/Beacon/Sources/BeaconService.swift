import Foundation
import LocusBLE
import LocusCore
import LocusStore
import Logging

/// Beacon monitoring and ranging, like Core Location's `BeaconIdentityCondition` and ranging:
/// conditions from config and `locus ctl beacon add`, `beacon.enter`/`beacon.exit` with the
/// concrete identity that satisfied a wildcard (`BeaconMonitor`), `beacon.range` with smoothed
/// distances, and state that survives restarts.
///
/// Persistence (when `persist` and the runtime gives a state directory) is the region
/// service's: every change is committed to SQLite with the events it causes (an outbox) before
/// they are published, and acknowledged when they come back through the hub (`OutboxReceipts`).
/// After a crash the service restores conditions and states, skips messages it had already
/// processed, and republishes unacknowledged events. Ranging filters are not stored.
public struct BeaconService: CommandableService {
    public let id: String
    public let configuration: BeaconConfiguration
    let logger: Logger
    /// Database file, or nil for memory only.
    let databasePath: String?
    var monitor: BeaconMonitor
    var store: ServiceStateStore?
    private var outbox = OutboxReceipts()
    /// Outboxed events, whose receipts are asked for (ranging and state snapshots are not
    /// outboxed, so their echo is not).
    static let acknowledgedTopics = [BeaconEnterKind.topicPrefix, BeaconExitKind.topicPrefix]
    /// Messages at or before this time were processed before a restart.
    private var processedThrough: EventTime?
    var lastMessageTime: EventTime?
    private var loaded = false
    public private(set) var counters = Counters()

    public struct Counters: Sendable, Equatable {
        /// Advertisements with no beacon identity (not a beacon, or URL/TLM/EID frames, or undecodable blocks).
        public var withoutIdentity = 0
        /// Advertisements from a source not in `sources`.
        public var otherSources = 0
        /// Advertisements with an RSSI that cannot be real (not -127…20 dBm).
        public var badRSSI = 0
        /// Identities decoded here from raw blocks (a source that did not decode them).
        public var decodedHere = 0
        /// Messages skipped after a restart because they had been processed before it.
        public var skippedAfterRestart = 0
    }

    public init(id: String, configuration: BeaconConfiguration, setup: PluginSetup? = nil,
                logger: Logger = Logger(label: "locus.beacon")) throws {
        self.id = id
        self.configuration = configuration
        self.logger = logger
        monitor = BeaconMonitor(monitorID: id, settings: BeaconSettings(configuration))
        if configuration.persist, let dir = setup?.stateDirectory {
            databasePath = configuration.database.map { setup?.resolvePath($0) ?? $0 } ?? dir + "/beacon-\(id).sqlite"
        } else {
            databasePath = nil
        }
    }

    public var subscriptions: [String] {
        let ads = configuration.sources.isEmpty ? ["obs.ble."] : configuration.sources.map { "obs.ble.\($0)" }
        return ads + ["clock.tick"]
    }

    /// Its own enter/exit events back from the hub acknowledge them in the outbox.
    public var acknowledgementTopics: [String] { databasePath != nil ? Self.acknowledgedTopics : [] }

    public mutating func acknowledge(_ message: BusMessage) throws {
        if message.envelope.producer == id, let store { try outbox.receive(message, store: store) }
    }

    public var produces: [String] { ["beacon.enter.", "beacon.exit.", "beacon.range.", "beacon.state."] }

    public var commands: [ServiceCommand] {
        [
            ServiceCommand("beacon.add", summary: "Add (or replace a runtime) condition: id=… and uuid=… [major=… [minor=…]] | altbeacon=<hex prefix> | namespace=… [instance=…]; notify_on_entry, notify_on_exit, ranging, properties."),
            ServiceCommand("beacon.remove", summary: "Remove a condition added at runtime: id=…"),
            ServiceCommand("beacon.list", summary: "Condition ids with state and origin; state=… filters, limit=… (default 1000)."),
            ServiceCommand("beacon.record", summary: "One condition's definition, state, refinement and beacons heard (id=…); also publishes beacon.state.<id>."),
        ]
    }

    // MARK: - Messages

    public mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws {
        try openIfNeeded(&output)
        if let fence = processedThrough {
            if message.time <= fence {
                counters.skippedAfterRestart += 1
                return
            }
            processedThrough = nil
        }
        lastMessageTime = message.time
        let events: [BeaconMonitor.Event]
        if let ad = message.payload(BLEAdvertisement.self) {
            guard let o = observation(ad, at: message.time) else {
                events = monitor.tick(at: message.time)
                try commitAndEmit(events, at: message.time, output: &output)
                return
            }
            events = monitor.receive(o)
        } else if message.payload(ClockTick.self) != nil {
            events = monitor.tick(at: message.time)
        } else {
            return
        }
        try commitAndEmit(events, at: message.time, output: &output)
    }

    /// The advertisement as the monitor takes it, or nil (counted) when it cannot satisfy a condition.
    mutating func observation(_ ad: BLEAdvertisement, at time: EventTime) -> BeaconObservation? {
        guard configuration.sources.isEmpty || configuration.sources.contains(ad.source) else {
            counters.otherSources += 1
            return nil
        }
        guard (-127...20).contains(ad.rssi) else {
            counters.badRSSI += 1
            return nil
        }
        var beacon = ad.beacon
        if beacon == nil, !(ad.manufacturerData.isEmpty && ad.serviceData.isEmpty) {
            // An out-of-process scanner that sends raw blocks only.
            beacon = BeaconDecoder.beacon(manufacturerData: ad.manufacturerData, serviceData: ad.serviceData)
            if beacon != nil { counters.decodedHere += 1 }
        }
        guard let b = beacon, let identity = BeaconIdentity(b) else {
            counters.withoutIdentity += 1
            return nil
        }
        let power = b.measuredPower.flatMap { (-127...20).contains($0) ? $0 : nil }
        return BeaconObservation(identity: identity, rssi: ad.rssi, measuredPower: power, source: ad.source, time: time)
    }

    /// Stores what changed and the enter/exit events in one transaction, then emits all events.
    mutating func commitAndEmit(_ events: [BeaconMonitor.Event], at time: EventTime, output: inout ServiceOutput) throws {
        let (changedIDs, removedIDs) = monitor.takeChanges()
        if let store, !(changedIDs.isEmpty && removedIDs.isEmpty && events.isEmpty) {
            var changes = StateChanges()
            for cid in changedIDs { if let r = monitor.record(cid) { changes.put("state", key: cid, value: r.json) } }
            for cid in removedIDs { changes.delete("state", key: cid) }
            var outboxed: [StoredEvent] = []
            for e in events {
                switch e {
                case .enter(let b): outboxed.append(StoredEvent(topic: BeaconEnterKind.topicPrefix + b.beacon, time: time, eventType: BeaconEnterKind.eventType, payload: b.json))
                case .exit(let b): outboxed.append(StoredEvent(topic: BeaconExitKind.topicPrefix + b.beacon, time: time, eventType: BeaconExitKind.eventType, payload: b.json))
                case .range: continue
                }
            }
            if !(changedIDs.isEmpty && removedIDs.isEmpty && outboxed.isEmpty) {
                outboxed.forEach { changes.append($0) }
                changes.setMeta("processed_through", String(time.milliseconds))
                let ids = try store.commit(changes)
                outbox.published(outboxed, ids: ids)
            }
        }
        for e in events { Self.emit(e, at: time, to: &output) }
    }

    static func emit(_ e: BeaconMonitor.Event, at time: EventTime, to output: inout ServiceOutput) {
        switch e {
        case .enter(let b): output.emit(BeaconEnter(b), topic: BeaconEnterKind.topicPrefix + b.beacon, time: time)
        case .exit(let b): output.emit(BeaconExit(b), topic: BeaconExitKind.topicPrefix + b.beacon, time: time)
        case .range(let r): output.emit(r, topic: "beacon.range." + r.beacon, time: time)
        }
    }

    // MARK: - Start and restart

    /// Loads conditions and, on first use, the database: config conditions, runtime conditions
    /// stored before (dropped when config now defines their id), stored states whose match is
    /// unchanged, and unacknowledged events to publish again.
    mutating func openIfNeeded(_ output: inout ServiceOutput) throws {
        guard !loaded else { return }
        let conditions = configuration.conditions
        guard let databasePath else {
            for c in conditions { monitor.put(c) }
            _ = monitor.takeChanges()
            loaded = true
            return
        }
        let s = try ServiceStateStore(path: databasePath, kind: "beacon")
        let restoredSet = try s.restoreConditions(
            configured: conditions, id: \.id,
            runtime: { try BeaconCondition(definition: $0, origin: .runtime) }, record: BeaconRecord.init(json:),
            unchanged: { $0.fingerprint == $1.fingerprint },
            unreadable: { key, error in
                logger.error("stored beacon condition cannot be read; dropped", metadata: ["condition": "\(key)", "error": "\(error)"])
            })
        for (c, record) in restoredSet.conditions { monitor.put(c, record: record) }
        let restored = restoredSet.restoredStates
        if !restoredSet.replacedByConfig.isEmpty {
            logger.warning("config now defines ids that were added at runtime; the config's definitions are used", metadata: [
                "conditions": "\(restoredSet.replacedByConfig.joined(separator: ","))"])
        }
        if let raw = try s.meta("processed_through"), let ms = Int64(raw) { processedThrough = EventTime(milliseconds: ms) }
        monitor.resume()
        _ = monitor.takeChanges()
        if !restoredSet.changes.isEmpty { try s.commit(restoredSet.changes) }
        let republish = try s.unacknowledgedEvents()
        store = s
        loaded = true
        logger.info("beacon state loaded", metadata: [
            "database": "\(databasePath)", "conditions": "\(monitor.count)", "restored_states": "\(restored)",
            "republished": "\(republish.count)"])
        for e in republish {
            guard let body = try? BeaconEventBody(json: e.payload) else { continue }
            let event: BeaconMonitor.Event = e.eventType == BeaconExitKind.eventType ? .exit(body) : .enter(body)
            Self.emit(event, at: e.time, to: &output)
            outbox.published([e], ids: [e.id])
            // Topic and time only: never identities at info level.
            logger.info("republishing an event not acknowledged before the restart", metadata: [
                "topic": "\(e.topic)", "time": "\(e.time.iso8601)"])
        }
    }
}
