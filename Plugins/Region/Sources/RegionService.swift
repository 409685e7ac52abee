import Foundation
import LocusCore
import LocusRegions
import LocusStore
import Logging

/// Region monitoring, like Core Location's `CLMonitor` without its limits: circles and
/// polygons from config, a watched GeoJSON file and `locus ctl region add`, hysteresis in
/// distance and event time (`RegionMonitor`), and state that survives restarts.
///
/// Persistence (when `persist` and the runtime gives a state directory): every change is
/// committed to SQLite in one transaction with the events it causes (an outbox) before they
/// are published; an event is acknowledged when it comes back through the hub. After a crash
/// the service restores its conditions and states, skips fixes it had already processed (a
/// replay played again), and republishes events that were never acknowledged — so no
/// transition is lost or published twice, except one that was on its way out in the
/// microseconds of a kill, which is published again.
///
/// Per device (`per_device: true`, for a server fed by a fleet): the conditions, the file and
/// the commands are shared; each device (the fix topic's last segment) has its own states,
/// pending runs, dwell and restart fence, stored per device; events go to
/// `region.<kind>.<id>.<device>` with `device` in the payload.
public struct RegionService: CommandableService, DeviceKeyedService {
    public let id: String
    public private(set) var configuration: RegionConfiguration
    let logger: Logger
    /// Database file, or nil for memory only.
    let databasePath: String?
    var monitor: RegionMonitor
    var store: ServiceStateStore?
    private var file: ConditionFile?
    /// The file's conditions as last loaded (for `locus check` errors at build, and reloads).
    private var fileConditions: [RegionCondition]
    /// Outbox events published and not yet seen back through the hub.
    private var outbox = OutboxReceipts()
    /// Per device (`""` for the one device): messages at or before this time were processed
    /// before a restart.
    var processedThrough: [String: EventTime] = [:]
    var lastMessageTime: EventTime?
    private var lastFileCheck: EventTime?
    /// `hub.max_message_bytes`: a condition whose events could not pass the hub is refused.
    let maxMessageBytes: Int
    public private(set) var counters = Counters()

    public struct Counters: Sendable, Equatable {
        /// Fixes ignored: no position, accuracy worse than max_accuracy, older than the last.
        public var fixesIgnored = 0
        /// Messages skipped after a restart because they had been processed before it.
        public var skippedAfterRestart = 0
        public var fileReloads = 0
        public var fileReloadFailures = 0
    }

    public init(id: String, configuration: RegionConfiguration, setup: PluginSetup? = nil,
                logger: Logger = Logger(label: "locus.region")) throws {
        self.id = id
        self.configuration = configuration
        self.logger = logger
        maxMessageBytes = setup?.maxMessageBytes ?? PluginSetup.defaultMaxMessageBytes
        monitor = RegionMonitor(monitorID: id, hysteresis: RegionHysteresis(
            minDistance: configuration.minDistance, minDuration: configuration.minDuration,
            maxAccuracy: configuration.maxAccuracy), perDevice: setup?.perDevice ?? false)
        if configuration.persist, let dir = setup?.stateDirectory {
            databasePath = configuration.database.map { setup?.resolvePath($0) ?? $0 } ?? dir + "/region-\(id).sqlite"
        } else {
            databasePath = nil
        }
        fileConditions = []
        if let path = configuration.file {
            var f = ConditionFile(path: setup?.resolvePath(path) ?? path)
            do {
                fileConditions = try f.load()
            } catch {
                throw ConfigValueError(key: "file", "\(f.path): \(error)")
            }
            let inline = Set(configuration.regions.map(\.id))
            if let clash = fileConditions.first(where: { inline.contains($0.id) }) {
                throw ConfigValueError(key: "file", "\(f.path): id \"\(clash.id)\" is also defined under regions:")
            }
            file = f
        }
        for c in configuration.regions {
            if let problem = eventSizeProblem(c) { throw ConfigValueError(key: "regions", problem) }
        }
        for c in fileConditions {
            if let problem = eventSizeProblem(c) { throw ConfigValueError(key: "file", "\(file?.path ?? ""): \(problem)") }
        }
    }

    /// Why `c`'s events could never pass the hub, or nil.
    func eventSizeProblem(_ c: RegionCondition) -> String? {
        c.eventSizeProblem(monitor: id, publishConditions: configuration.publishConditions, maxMessageBytes: maxMessageBytes)
    }

    public var subscriptions: [String] {
        let fixes = configuration.sources.isEmpty ? ["obs.fix."] : configuration.sources.map { "obs.fix.\($0)" }
        return fixes + ["clock.tick"]
    }

    /// Its own events come back through the hub: that acknowledges them in the outbox.
    public var acknowledgementTopics: [String] { databasePath != nil ? ["region."] : [] }

    public var produces: [String] { ["region.enter.", "region.exit.", "region.dwell.", "region.state.", RegionConditionEvent.topicPrefix] }

    public var commands: [ServiceCommand] {
        let perDevice = monitor.perDevice ? [
            ServiceCommand("region.devices", summary: "Devices seen, with the conditions each is inside; limit=… (default 1000)."),
        ] : []
        return [
            ServiceCommand("region.add", summary: "Add (or replace a runtime) condition: id=… lat=… lon=… radius=… | geometry=@shape.json; notify_on_entry, notify_on_exit, dwell, properties, assuming=satisfied|unsatisfied."),
            ServiceCommand("region.remove", summary: "Remove a condition added at runtime: id=…"),
            ServiceCommand("region.list", summary: "Condition ids with state and origin; state=… filters, limit=… (default 1000)."),
            ServiceCommand("region.record", summary: "One condition's definition, state, pending transition and last event (id=…, and device=… per device); also publishes region.state.<id>."),
        ] + perDevice
    }

    // MARK: - Messages

    public mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws {
        try openIfNeeded(&output)
        announceConditionsIfDue(at: message.time, output: &output)
        let tick = message.payload(ClockTick.self)
        // Per device, ticks are everyone's: only a device's fixes are fenced.
        let fenced = !(monitor.perDevice && tick != nil)
        let device = monitor.perDevice ? Self.device(of: message.topic) : ""
        if fenced, let fence = processedThrough[device] {
            if message.time <= fence {
                counters.skippedAfterRestart += 1
                return
            }
            processedThrough[device] = nil
        }
        lastMessageTime = message.time
        var events: [RegionMonitor.Event] = []
        if tick != nil {
            try checkFile(at: message.time, output: &output)
            events = monitor.tick(at: message.time)
        } else if let fix = message.payload(Fix.self) {
            guard let regionFix = usable(fix, at: message.time, device: device) else {
                counters.fixesIgnored += 1
                return
            }
            events = monitor.receive(regionFix, device: device)
        } else {
            return
        }
        try commitAndEmit(events, at: message.time, output: &output)
    }

    /// The device a per-device message is for: its topic's last segment (`obs.fix.<device>`).
    static func device(of topic: String) -> String {
        guard let dot = topic.lastIndex(of: ".") else { return topic }
        return String(topic[topic.index(after: dot)...])
    }

    func usable(_ fix: Fix, at time: EventTime, device: String = "") -> RegionFix? {
        guard configuration.sources.isEmpty || configuration.sources.contains(fix.source) else { return nil }
        guard fix.hasPosition, let lat = fix.latitude, let lon = fix.longitude else { return nil }
        let f = RegionFix(source: fix.source, coordinate: Coordinate(latitude: lat, longitude: lon),
                          horizontalAccuracy: fix.horizontalAccuracy, time: time)
        return monitor.isUsable(f, device: device) ? f : nil
    }

    /// Stores what changed and the events in one transaction, then emits them.
    mutating func commitAndEmit(_ events: [RegionMonitor.Event], at time: EventTime, output: inout ServiceOutput) throws {
        let monitorChanges = monitor.takeChanges()
        guard !events.isEmpty || !monitorChanges.isEmpty else { return }
        var outboxed: [StoredEvent] = []
        if let store {
            var changes = stateChanges(monitorChanges)
            for e in events {
                let stored = StoredEvent(topic: Self.topic(e.kind, e.body), time: time, eventType: e.kind.rawValue,
                                         payload: Self.json(e.body))
                changes.append(stored)
                outboxed.append(stored)
            }
            if !monitor.perDevice {
                changes.setMeta("processed_through", String(time.milliseconds))
                if let t = monitor.lastFixTime { changes.setMeta("last_fix_time", String(t.milliseconds)) }
            }
            let ids = try store.commit(changes)
            outbox.published(outboxed, ids: ids)
        }
        for e in events {
            Self.emit(e.kind, e.body, at: time, to: &output)
            if configuration.stateOnTransition && e.kind != .dwell {
                try emitSnapshot(e.body.region, device: e.body.device ?? "", at: time, output: &output)
            }
        }
    }

    /// The rows to write for what the monitor changed. One device: `state` rows by condition
    /// id, as always. Per device: `device_state` rows by `<device>/<condition>` (records held),
    /// `device` rows (first and last fix time), and a `state` row per condition holding only
    /// its fingerprint, so that a restart knows which conditions are new to every device.
    func stateChanges(_ m: RegionMonitor.Changes) -> StateChanges {
        var changes = StateChanges()
        guard monitor.perDevice else {
            for d in m.devices {
                for cid in d.changed { if let r = monitor.record(cid) { changes.put("state", key: cid, value: r.json) } }
                for cid in d.removed { changes.delete("state", key: cid) }
            }
            return changes
        }
        for cid in m.conditionsPut {
            if let c = monitor.condition(cid) { changes.put("state", key: cid, value: ConditionRecord(fingerprint: c.fingerprint).json) }
        }
        for cid in m.conditionsRemoved { changes.delete("state", key: cid) }
        for d in m.devices {
            for cid in d.changed {
                if let r = monitor.record(cid, device: d.device) { changes.put("device_state", key: d.device + "/" + cid, value: r.json) }
            }
            for cid in d.removed { changes.delete("device_state", key: d.device + "/" + cid) }
            changes.put("device", key: d.device, value: monitor.timesJSON(device: d.device))
        }
        return changes
    }

    public mutating func acknowledge(_ message: BusMessage) throws {
        if message.envelope.producer == id, let store { try outbox.receive(message, store: store) }
    }

    private mutating func checkFile(at time: EventTime, output: inout ServiceOutput) throws {
        guard var f = file else { return }
        if let last = lastFileCheck, time.seconds(since: last) < configuration.fileCheckInterval, time >= last { return }
        lastFileCheck = time
        defer { file = f }
        let reloaded: [RegionCondition]
        do {
            guard let r = try f.reloadIfChanged() else { return }
            reloaded = r
        } catch {
            counters.fileReloadFailures += 1
            logger.error("region file not reloaded; keeping the previous conditions", metadata: [
                "file": "\(f.path)", "error": "\(error)"])
            return
        }
        if let problem = reloaded.compactMap({ eventSizeProblem($0) }).first {
            counters.fileReloadFailures += 1
            logger.error("region file not reloaded; keeping the previous conditions", metadata: [
                "file": "\(f.path)", "error": "\(problem)"])
            return
        }
        let inline = Set(configuration.regions.map(\.id))
        let next = reloaded.filter { !inline.contains($0.id) }
        if next.count != reloaded.count {
            logger.error("region file defines ids also under regions:; config wins", metadata: ["file": "\(f.path)"])
        }
        let nextIDs = Set(next.map(\.id))
        var removedCount = 0
        for old in fileConditions where !nextIDs.contains(old.id) {
            monitor.remove(old.id)
            announce(old.id, at: time, output: &output)
            removedCount += 1
        }
        var runtimeReplaced: [String] = []
        for c in next {
            if monitor.condition(c.id)?.origin == .runtime { runtimeReplaced.append(c.id) }
            if monitor.condition(c.id) != c {
                monitor.put(c)
                announce(c.id, at: time, output: &output)
            }
        }
        fileConditions = next
        counters.fileReloads += 1
        if let store, !runtimeReplaced.isEmpty {
            var changes = StateChanges()
            for rid in runtimeReplaced { changes.delete("condition", key: rid) }
            try store.commit(changes)
        }
        logger.info("region file reloaded", metadata: [
            "file": "\(f.path)", "conditions": "\(next.count)", "removed": "\(removedCount)"])
        try commitAndEmit([], at: time, output: &output)
    }

    // MARK: - Start and restart

    /// Loads conditions and, on first use, the database: config and file conditions, runtime
    /// conditions stored before (dropped when config now defines their id), stored states
    /// whose shape is unchanged, and unacknowledged events to publish again.
    mutating func openIfNeeded(_ output: inout ServiceOutput) throws {
        guard !loaded else { return }
        let configured: [RegionCondition] = configuration.regions + fileConditions
        guard let databasePath else {
            for c in configured { monitor.put(c) }
            _ = monitor.takeChanges()
            loaded = true
            return
        }
        let s = try ServiceStateStore(path: databasePath, kind: "region")
        let restoredSet = try s.restoreConditions(
            configured: configured, id: \.id,
            runtime: {
                // Many large polygons take a while: a stop asked meanwhile is not kept waiting.
                if Task.isCancelled { throw CancellationError() }
                return try RegionCondition(definition: $0, origin: .runtime)
            }, record: ConditionRecord.init(json:),
            unchanged: { $0.fingerprint == $1.fingerprint },
            unreadable: { key, error in
                logger.error("stored region cannot be read; dropped", metadata: ["region": "\(key)", "error": "\(error)"])
            })
        var restored = restoredSet.restoredStates
        var restoreChanges = restoredSet.changes
        if monitor.perDevice {
            restored = try restoreDevices(restoredSet, store: s, changes: &restoreChanges)
        } else {
            for (c, record) in restoredSet.conditions { monitor.put(c, record: record) }
        }
        if !restoredSet.replacedByConfig.isEmpty {
            logger.warning("config now defines ids that were added at runtime; the config's definitions are used", metadata: [
                "regions": "\(restoredSet.replacedByConfig.joined(separator: ","))"])
        }
        if !monitor.perDevice {
            if let raw = try s.meta("processed_through"), let ms = Int64(raw) { processedThrough[""] = EventTime(milliseconds: ms) }
            if let raw = try s.meta("last_fix_time"), let ms = Int64(raw) { monitor.resume(lastFixTime: EventTime(milliseconds: ms)) }
            _ = monitor.takeChanges()
        } else {
            // Fingerprints of the conditions as they are now, and new conditions' records.
            restoreChanges.append(contentsOf: stateChanges(monitor.takeChanges()))
        }
        if !restoreChanges.isEmpty { try s.commit(restoreChanges) }
        let republish = try s.unacknowledgedEvents()
        store = s
        loaded = true
        logger.info("region state loaded", metadata: [
            "database": "\(databasePath)", "conditions": "\(monitor.count)", "restored_states": "\(restored)",
            "devices": "\(monitor.deviceCount)",
            "republished": "\(republish.count)"])
        for e in republish {
            guard let kind = RegionMonitor.EventKind(rawValue: e.eventType),
                  let body = try? Self.body(fromJSON: e.payload) else { continue }
            Self.emit(kind, body, at: e.time, to: &output)
            outbox.published([e], ids: [e.id])
            // Topic and time only: never coordinates at info level.
            logger.info("republishing an event not acknowledged before the restart", metadata: [
                "topic": "\(e.topic)", "time": "\(e.time.iso8601)"])
        }
    }

    private var loaded = false
    /// Set when the conditions were loaded and not yet announced (`publish_conditions`).
    private var conditionsAnnounced = false

    // MARK: - Definitions on the bus

    /// Publishes the conditions' definitions whatever the config says: `locus view` draws the
    /// fences of a config written without `publish_conditions`.
    public mutating func enableConditionPublishing() { configuration.publishConditions = true }

    /// With `publish_conditions`, the first message (or command) after start announces every
    /// condition, in id order, at its time: replays stay deterministic.
    mutating func announceConditionsIfDue(at time: EventTime, output: inout ServiceOutput) {
        guard configuration.publishConditions, !conditionsAnnounced else { return }
        conditionsAnnounced = true
        for rid in monitor.ids { announce(rid, at: time, output: &output) }
    }

    /// Publishes a condition's definition as it is now, or its removal when it is gone.
    func announce(_ rid: String, at time: EventTime, output: inout ServiceOutput) {
        guard configuration.publishConditions else { return }
        output.emit(RegionConditionEvent(region: rid, monitor: id, condition: monitor.condition(rid)),
                    topic: RegionConditionEvent.topicPrefix + rid, time: time)
    }

    // MARK: - Encoding

    /// `region.<kind>.<id>`, and `.<device>` per device.
    static func topic(_ kind: RegionMonitor.EventKind, _ body: RegionEventBody) -> String {
        kind.rawValue + "." + body.region + (body.device.map { "." + $0 } ?? "")
    }

    static func emit(_ kind: RegionMonitor.EventKind, _ body: RegionEventBody, at time: EventTime, to output: inout ServiceOutput) {
        let topic = topic(kind, body)
        switch kind {
        case .enter: output.emit(RegionEnter(body), topic: topic, time: time)
        case .exit: output.emit(RegionExit(body), topic: topic, time: time)
        case .dwell: output.emit(RegionDwell(body), topic: topic, time: time)
        }
    }

    static func json(_ body: RegionEventBody) -> JSONValue {
        var w = JSONWriter()
        body.write(to: &w)
        return (try? JSONValue.read(w.bytes)) ?? .null
    }

    static func body(fromJSON value: JSONValue) throws -> RegionEventBody {
        try JSONReader.read(value.encoded()) { r in try RegionEventBody(from: &r) }
    }
}
