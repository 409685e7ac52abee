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
public struct RegionService: CommandableService {
    public let id: String
    public let configuration: RegionConfiguration
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
    /// Messages at or before this time were processed before a restart.
    private var processedThrough: EventTime?
    var lastMessageTime: EventTime?
    private var lastFileCheck: EventTime?
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
        monitor = RegionMonitor(monitorID: id, hysteresis: RegionHysteresis(
            minDistance: configuration.minDistance, minDuration: configuration.minDuration,
            maxAccuracy: configuration.maxAccuracy))
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
    }

    public var subscriptions: [String] {
        let fixes = configuration.sources.isEmpty ? ["obs.fix."] : configuration.sources.map { "obs.fix.\($0)" }
        return fixes + ["clock.tick"]
    }

    /// Its own events come back through the hub: that acknowledges them in the outbox.
    public var acknowledgementTopics: [String] { databasePath != nil ? ["region."] : [] }

    public var produces: [String] { ["region.enter.", "region.exit.", "region.dwell.", "region.state."] }

    public var commands: [ServiceCommand] {
        [
            ServiceCommand("region.add", summary: "Add (or replace a runtime) condition: id=… lat=… lon=… radius=… | geometry=@shape.json; notify_on_entry, notify_on_exit, dwell, properties, assuming=satisfied|unsatisfied."),
            ServiceCommand("region.remove", summary: "Remove a condition added at runtime: id=…"),
            ServiceCommand("region.list", summary: "Condition ids with state and origin; state=… filters, limit=… (default 1000)."),
            ServiceCommand("region.record", summary: "One condition's definition, state, pending transition and last event (id=…); also publishes region.state.<id>."),
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
        var events: [RegionMonitor.Event] = []
        if message.payload(ClockTick.self) != nil {
            try checkFile(at: message.time, output: &output)
            events = monitor.tick(at: message.time)
        } else if let fix = message.payload(Fix.self) {
            guard let regionFix = usable(fix, at: message.time) else {
                counters.fixesIgnored += 1
                return
            }
            events = monitor.receive(regionFix)
        } else {
            return
        }
        try commitAndEmit(events, at: message.time, output: &output)
    }

    func usable(_ fix: Fix, at time: EventTime) -> RegionFix? {
        guard configuration.sources.isEmpty || configuration.sources.contains(fix.source) else { return nil }
        guard fix.hasPosition, let lat = fix.latitude, let lon = fix.longitude else { return nil }
        let f = RegionFix(source: fix.source, coordinate: Coordinate(latitude: lat, longitude: lon),
                          horizontalAccuracy: fix.horizontalAccuracy, time: time)
        return monitor.isUsable(f) ? f : nil
    }

    /// Stores what changed and the events in one transaction, then emits them.
    mutating func commitAndEmit(_ events: [RegionMonitor.Event], at time: EventTime, output: inout ServiceOutput) throws {
        let (changedIDs, removedIDs) = monitor.takeChanges()
        guard !events.isEmpty || !changedIDs.isEmpty || !removedIDs.isEmpty else { return }
        var outboxed: [StoredEvent] = []
        if let store {
            var changes = StateChanges()
            for cid in changedIDs { if let r = monitor.record(cid) { changes.put("state", key: cid, value: r.json) } }
            for cid in removedIDs { changes.delete("state", key: cid) }
            for e in events {
                let stored = StoredEvent(topic: Self.topic(e.kind, e.body.region), time: time, eventType: e.kind.rawValue,
                                         payload: Self.json(e.body))
                changes.append(stored)
                outboxed.append(stored)
            }
            changes.setMeta("processed_through", String(time.milliseconds))
            if let t = monitor.lastFixTime { changes.setMeta("last_fix_time", String(t.milliseconds)) }
            let ids = try store.commit(changes)
            outbox.published(outboxed, ids: ids)
        }
        for e in events { Self.emit(e.kind, e.body, at: time, to: &output) }
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
        let inline = Set(configuration.regions.map(\.id))
        let next = reloaded.filter { !inline.contains($0.id) }
        if next.count != reloaded.count {
            logger.error("region file defines ids also under regions:; config wins", metadata: ["file": "\(f.path)"])
        }
        let nextIDs = Set(next.map(\.id))
        var removedCount = 0
        for old in fileConditions where !nextIDs.contains(old.id) {
            monitor.remove(old.id)
            removedCount += 1
        }
        var runtimeReplaced: [String] = []
        for c in next {
            if monitor.condition(c.id)?.origin == .runtime { runtimeReplaced.append(c.id) }
            if monitor.condition(c.id) != c { monitor.put(c) }
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
            runtime: { try RegionCondition(definition: $0, origin: .runtime) }, record: ConditionRecord.init(json:),
            unchanged: { $0.fingerprint == $1.fingerprint },
            unreadable: { key, error in
                logger.error("stored region cannot be read; dropped", metadata: ["region": "\(key)", "error": "\(error)"])
            })
        for (c, record) in restoredSet.conditions { monitor.put(c, record: record) }
        let restored = restoredSet.restoredStates
        if !restoredSet.replacedByConfig.isEmpty {
            logger.warning("config now defines ids that were added at runtime; the config's definitions are used", metadata: [
                "regions": "\(restoredSet.replacedByConfig.joined(separator: ","))"])
        }
        if let raw = try s.meta("processed_through"), let ms = Int64(raw) { processedThrough = EventTime(milliseconds: ms) }
        if let raw = try s.meta("last_fix_time"), let ms = Int64(raw) { monitor.resume(lastFixTime: EventTime(milliseconds: ms)) }
        _ = monitor.takeChanges()
        if !restoredSet.changes.isEmpty { try s.commit(restoredSet.changes) }
        let republish = try s.unacknowledgedEvents()
        store = s
        loaded = true
        logger.info("region state loaded", metadata: [
            "database": "\(databasePath)", "conditions": "\(monitor.count)", "restored_states": "\(restored)",
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

    // MARK: - Encoding

    static func topic(_ kind: RegionMonitor.EventKind, _ region: String) -> String { kind.rawValue + "." + region }

    static func emit(_ kind: RegionMonitor.EventKind, _ body: RegionEventBody, at time: EventTime, to output: inout ServiceOutput) {
        let topic = topic(kind, body.region)
        switch kind {
        case .enter: output.emit(RegionEnter(body), topic: topic, time: time)
        case .exit: output.emit(RegionExit(body), topic: topic, time: time)
        case .dwell: output.emit(RegionDwell(body), topic: topic, time: time)
        }
    }

    static func json(_ body: RegionEventBody) -> JSONValue {
        var w = JSONWriter()
        body.write(to: &w)
        return (try? JSONValue.decode(w.bytes)) ?? .null
    }

    static func body(fromJSON value: JSONValue) throws -> RegionEventBody {
        try JSONReader.read(value.encoded()) { r in try RegionEventBody(from: &r) }
    }
}
