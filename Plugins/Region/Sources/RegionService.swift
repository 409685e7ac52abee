import Foundation
import LocusConditions
import LocusCore
import LocusRegions
import Logging

/// Region monitoring, like Core Location's `CLMonitor` without its limits: circles and
/// polygons from config, a watched GeoJSON file and `locus ctl region add`, hysteresis in
/// distance and event time (`RegionMonitor`), and state that survives restarts.
///
/// State (`KeyedStatefulService`): the runtime keeps it, one record per fact, and commits the
/// records a batch or a command changed with the events they caused (docs/writing-plugins.md,
/// "State"): each condition added at runtime (`condition/<id>`), each fence's fingerprint and
/// definition (`fence/<id>`: after a restart, which fences are new and which definitions
/// subscribers have not been told), each device's record of a condition
/// (`record/<device>.<id>`), each device's fix times and last fix (`device/<device>`), and
/// the time of the last message (`service`). The service does no I/O: the runtime reads its
/// GeoJSON file at start and hands over each change (`FileFedService`), committed like a
/// command.
///
/// Per device (`per_device: true`, for a server fed by a fleet): the conditions, the file and
/// the commands are shared; each device (the fix topic's last segment) has its own states,
/// pending runs and dwell; events go to `region.<kind>.<id>.<device>` with `device` in the
/// payload.
public struct RegionService: CommandableService, DeviceKeyedService, KeyedStatefulService, ImportsEarlierStateStore, FileFedService,
    DefinitionPublishingService {
    public let id: String
    public private(set) var configuration: RegionConfiguration
    let logger: Logger
    var monitor: RegionMonitor
    /// `file:` resolved, if there is one.
    private let filePath: String?
    /// The file's conditions as last loaded (at build, then at each change).
    private var fileConditions: [RegionCondition] = []
    var lastMessageTime: EventTime?
    /// `hub.max_message_bytes`: a condition whose events could not pass the hub is refused.
    let maxMessageBytes: Int
    public private(set) var counters = Counters()
    /// Per device: devices with a state at most (`max_devices`).
    let maxDevices: Int
    /// What `fence/<id>` holds (committed, or about to be): each condition's fingerprint and
    /// definition as subscribers were last told.
    private var fences: [String: JSONValue] = [:]
    /// Records changed since the last `takeStateChanges` besides the monitor's own.
    var pendingRecords: [String: JSONValue?] = [:]
    /// Conditions whose definition (or removal) is still to be announced (`publish_conditions`).
    private var unannounced = Set<String>()
    /// How the fences differ from those saved with the state, as the last restore found them
    /// (`stateAfterConfigurationChange`).
    var fenceChanges = FenceChanges()
    private var committedLastMessageTime: EventTime?
    /// When the runtime took the current command (`commandArrives`); not state.
    var arrivalTime: EventTime?

    public struct Counters: Sendable, Equatable {
        /// Fixes ignored: no position, accuracy worse than max_accuracy, older than the last.
        public var fixesIgnored = 0
        public var fileReloads = 0
        public var fileReloadFailures = 0
        /// Per device: fixes of a new device when `max_devices` devices already have a state.
        public var droppedTooManyDevices = 0
        /// States imported from an earlier version's store that could not be used (unreadable,
        /// or of a condition that no longer exists): those conditions start undecided.
        public var earlierStatesUnusable = 0
    }

    /// The file this service kept its own state in before the runtime did: its runtime
    /// conditions are imported at the first start (`ImportsEarlierStateStore`).
    public let earlierStateStore: EarlierStateStore?

    public init(id: String, configuration: RegionConfiguration, setup: PluginSetup? = nil,
                logger: Logger = Logger(label: "locus.region")) throws {
        self.id = id
        self.configuration = configuration
        self.logger = logger
        maxMessageBytes = setup?.maxMessageBytes ?? PluginSetup.defaultMaxMessageBytes
        maxDevices = setup?.maxDevices ?? PluginSetup.defaultMaxDevices
        monitor = RegionMonitor(monitorID: id, hysteresis: RegionHysteresis(
            minDistance: configuration.minDistance, minDuration: configuration.minDuration,
            maxAccuracy: configuration.maxAccuracy), perDevice: setup?.perDevice ?? false)
        if let database = configuration.database {
            logger.warning("database is no longer used: the runtime keeps the region state in <state_directory>/services/<id>.sqlite (it imports the conditions added at runtime from this file at its first start)", metadata: [
                "plugin": "\(id)", "database": "\(database)"])
        }
        earlierStateStore = RuntimeConditions.earlierStore(kind: "region", id: id, database: configuration.database, setup: setup,
                                                           stateCollections: EarlierRegionRecords.collections)
        filePath = configuration.file.map { setup?.resolvePath($0) ?? $0 }
        for c in configuration.regions {
            if let problem = eventSizeProblem(c) { throw ConfigValueError(key: "regions", problem) }
        }
    }

    public var watchedFiles: [WatchedFile] {
        filePath.map { [WatchedFile(path: $0, configKey: "file", checkInterval: configuration.fileCheckInterval)] } ?? []
    }

    /// The file's conditions, validated: what `loadFile` and `fileChanged` take.
    func fileConditions(_ contents: [UInt8]) throws -> [RegionCondition] {
        let conditions = try ConditionFile.conditions(contents)
        let inline = Set(configuration.regions.map(\.id))
        if let clash = conditions.first(where: { inline.contains($0.id) }) {
            throw WatchedFileError("id \"\(clash.id)\" is also defined under regions:")
        }
        if let problem = conditions.lazy.compactMap({ self.eventSizeProblem($0) }).first { throw WatchedFileError(problem) }
        return conditions
    }

    public mutating func loadFile(_ file: WatchedFile, contents: [UInt8]) throws {
        fileConditions = try fileConditions(contents)
    }

    /// Why `c`'s events could never pass the hub, or nil.
    func eventSizeProblem(_ c: RegionCondition) -> String? {
        c.eventSizeProblem(monitor: id, publishConditions: configuration.publishConditions, maxMessageBytes: maxMessageBytes)
    }

    public var subscriptions: [String] {
        let fixes = configuration.sources.isEmpty ? ["obs.fix."] : configuration.sources.map { "obs.fix.\($0)" }
        return fixes + ["clock.tick"]
    }

    public var keepsState: Bool { configuration.persist }
    /// A device's fix times and last fix change with every fix it sends: the runtime logs them.
    public var loggedRecordPrefixes: [String] { ["device/"] }

    /// The ids of the conditions watched, sorted.
    public var conditionIDs: [String] { monitor.ids }
    /// The condition watched under `id`, wherever it came from.
    public func condition(_ id: String) -> RegionCondition? { monitor.condition(id) }

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
        loadIfNeeded()
        announceConditionsIfDue(at: message.time, output: &output)
        let tick = message.payload(ClockTick.self)
        let device = monitor.perDevice ? Self.device(of: message.topic) : ""
        lastMessageTime = message.time
        var events: [RegionMonitorEvent] = []
        if tick != nil {
            events = monitor.tick(at: message.time)
        } else if let fix = message.payload(Fix.self) {
            guard let regionFix = usable(fix, at: message.time, device: device) else {
                counters.fixesIgnored += 1
                return
            }
            if monitor.perDevice, monitor.deviceCount >= maxDevices, !monitor.hasDevice(device) {
                counters.droppedTooManyDevices += 1
                return
            }
            events = monitor.receive(regionFix, device: device)
        } else {
            return
        }
        try emit(events, at: message.time, output: &output)
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

    /// Emits the monitor's events (and, with `state_on_transition`, a snapshot after each).
    mutating func emit(_ events: [RegionMonitorEvent], at time: EventTime, output: inout ServiceOutput) throws {
        for e in events {
            Self.emit(e.kind, e.body, at: time, to: &output)
            if configuration.stateOnTransition && e.kind != .dwell {
                try emitSnapshot(e.body.region, device: e.body.device ?? "", at: time, output: &output)
            }
        }
    }

    /// The runtime read the file anew: conditions removed from it are removed, new and changed
    /// ones put, at the time of the last message. A file that does not load (or no longer
    /// reads) keeps the conditions loaded before; it is logged and counted.
    public mutating func fileChanged(_ file: WatchedFile, contents: Result<[UInt8], WatchedFileError>,
                                     output: inout ServiceOutput) throws {
        loadIfNeeded()
        let time = commandTime
        announceConditionsIfDue(at: time, output: &output)
        let next: [RegionCondition]
        do {
            next = try fileConditions(try contents.get())
        } catch {
            counters.fileReloadFailures += 1
            logger.error("region file not reloaded; keeping the previous conditions", metadata: [
                "file": "\(file.path)", "error": "\(error)"])
            return
        }
        let nextIDs = Set(next.map(\.id))
        var removedCount = 0
        for old in fileConditions where !nextIDs.contains(old.id) {
            monitor.remove(old.id)
            changedDefinition(old.id, at: time, output: &output)
            removedCount += 1
        }
        for c in next {
            // A file definition replaces a runtime one of the same id: that one is gone.
            if monitor.condition(c.id)?.origin == .runtime { pendingRecords[Self.conditionKey(c.id)] = .some(nil) }
            if monitor.condition(c.id) != c {
                monitor.put(c)
                changedDefinition(c.id, at: time, output: &output)
            }
        }
        fileConditions = next
        counters.fileReloads += 1
        logger.info("region file reloaded", metadata: [
            "file": "\(file.path)", "conditions": "\(next.count)", "removed": "\(removedCount)"])
    }

    // MARK: - State

    static func conditionKey(_ rid: String) -> String { RuntimeConditions.key(rid) }
    static func fenceKey(_ rid: String) -> String { "fence/" + rid }
    static func recordKey(device: String, _ rid: String) -> String { "record/" + device + "." + rid }
    static func deviceKey(_ device: String) -> String { "device/" + device }
    static let serviceKey = "service"

    /// The conditions of config and file, on a start without committed state.
    mutating func loadIfNeeded() {
        guard !loaded else { return }
        loaded = true
        for c in configuration.regions + fileConditions { monitor.put(c) }
        noteFences(stored: [:])
    }

    /// After the conditions are in the monitor: which definitions differ from those committed
    /// in `stored` (new, changed, removed while Locus was down), to commit and to announce.
    private mutating func noteFences(stored: [String: JSONValue]) {
        fences = stored
        for rid in Set(stored.keys).union(monitor.ids).sorted() {
            let now = monitor.condition(rid).map(Self.fence)
            guard now != stored[rid] else { continue }
            fences[rid] = now
            pendingRecords[Self.fenceKey(rid)] = .some(now)
            unannounced.insert(rid)
        }
    }

    static func fence(_ c: RegionCondition) -> JSONValue {
        .object(["fingerprint": .string(c.fingerprint), "definition": c.definition])
    }

    /// A condition was put, changed or removed: its fence record and its announcement.
    mutating func changedDefinition(_ rid: String, at time: EventTime, output: inout ServiceOutput) {
        let now = monitor.condition(rid).map(Self.fence)
        if now != fences[rid] {
            fences[rid] = now
            pendingRecords[Self.fenceKey(rid)] = .some(now)
        }
        announce(rid, at: time, output: &output)
    }

    public mutating func restoreState(_ records: [String: [UInt8]]) throws {
        var stored: [String: JSONValue] = [:]
        var byDevice: [String: [String: ConditionRecord]] = [:]
        var recordKeys: [String: [String: String]] = [:]
        var times: [String: RegionDeviceState.Times] = [:]
        var earlier = EarlierRegionRecords()
        for (key, bytes) in records {
            guard let value = try? JSONValue.read(bytes) else {
                logger.error("a saved region record cannot be read; dropped", metadata: ["record": "\(key)"])
                pendingRecords[key] = .some(nil)
                continue
            }
            if earlier.take(key, value, perDevice: monitor.perDevice) {
                pendingRecords[key] = .some(nil)  // read once: kept below in the current form
            } else if key.hasPrefix(RuntimeConditions.keyPrefix) {
                continue  // below, once config and file are in the monitor
            } else if key.hasPrefix("fence/") {
                stored[String(key.dropFirst("fence/".count))] = value
            } else if key.hasPrefix("record/") {
                // A record names its device and condition by its key too: one that says otherwise is damage.
                guard let device = value["device"]?.stringValue, let rid = value["region"]?.stringValue,
                      key == Self.recordKey(device: device, rid), let r = ConditionRecord(json: value) else {
                    pendingRecords[key] = .some(nil)
                    continue
                }
                byDevice[device, default: [:]][rid] = r
                recordKeys[device, default: [:]][rid] = key
            } else if key.hasPrefix("device/") {
                times[String(key.dropFirst("device/".count))] = RegionDeviceState.Times(json: value)
            } else if key == Self.serviceKey {
                lastMessageTime = value["last_message_time"]?.doubleValue.flatMap { EventTime(jsonMilliseconds: $0) }
                committedLastMessageTime = lastMessageTime
            }
        }
        loaded = true
        let configured = configuration.regions + fileConditions
        let configuredIDs = Set(configured.map(\.id))
        for c in configured { monitor.put(c) }
        let runtime = try RuntimeConditions.restore(records, configuredIDs: configuredIDs, kind: "region", logger: logger) {
            try RegionCondition(definition: $0, origin: .runtime)
        }
        for c in runtime.kept { monitor.put(c) }
        for key in runtime.deleted { pendingRecords[key] = .some(nil) }
        let imported = importEarlier(&earlier, into: &byDevice, times: &times)
        counters.earlierStatesUnusable += earlier.unusable
        // Fences new to every device: not committed before, or committed with another shape.
        let newConditions = Set(monitor.ids.filter {
            (stored[$0]?["fingerprint"]?.stringValue ?? earlier.fingerprints[$0]) != monitor.condition($0)?.fingerprint
        })
        let storedIDs = Set(stored.keys), configuredNow = Set(monitor.ids)
        fenceChanges = FenceChanges(reshaped: configuredNow.intersection(storedIDs).intersection(newConditions).sorted(),
                                    added: storedIDs.isEmpty ? [] : configuredNow.subtracting(storedIDs).sorted(),
                                    removed: storedIDs.subtracting(configuredNow).sorted())
        _ = monitor.takeChanges()
        var restoredRecords = 0
        // A switch between one device and per_device leaves records of the other shape: dropped.
        let devices = monitor.perDevice ? Set(times.keys).union(byDevice.keys).subtracting([""]) : [""]
        for device in devices.sorted() {
            let records = byDevice[device] ?? [:]
            guard let t = times[device] ?? (monitor.perDevice ? nil : .init(firstFixTime: nil, lastFixTime: nil, lastFix: nil)) else {
                // Records of a device whose times are missing cannot be placed in time: start over.
                for key in (recordKeys[device] ?? [:]).values { pendingRecords[key] = .some(nil) }
                continue
            }
            for rid in monitor.restore(device: device, times: t, records: records, newConditions: newConditions) {
                if let key = recordKeys[device]?[rid] { pendingRecords[key] = .some(nil) }
            }
            restoredRecords += records.count
        }
        keepImported(imported, devices: devices)
        for (device, keys) in recordKeys where !devices.contains(device) { for key in keys.values { pendingRecords[key] = .some(nil) } }
        for device in times.keys where !devices.contains(device) { pendingRecords[Self.deviceKey(device)] = .some(nil) }
        noteFences(stored: stored)
        // Debug: the runtime says once at info that the service resumed, with its counts and store.
        logger.debug("region state restored", metadata: [
            "conditions": "\(monitor.count)", "records": "\(restoredRecords)", "devices": "\(monitor.deviceCount)"])
    }

    public mutating func takeStateChanges() throws -> [(key: String, value: [UInt8]?)] {
        loadIfNeeded()
        var out: [(key: String, value: [UInt8]?)] = pendingRecords.sorted { $0.key < $1.key }.map { ($0.key, $0.value?.encoded()) }
        pendingRecords.removeAll(keepingCapacity: true)
        for (device, changes) in monitor.takeChanges() {
            for rid in changes.changed {
                guard let record = monitor.record(rid, device: device) else { continue }
                out.append((Self.recordKey(device: device, rid), record.encoded(device: device, region: rid)))
            }
            for rid in changes.removed { out.append((Self.recordKey(device: device, rid), nil)) }
            out.append((Self.deviceKey(device), monitor.times(device: device).encoded))
        }
        if lastMessageTime != committedLastMessageTime, let t = lastMessageTime {
            committedLastMessageTime = t
            out.append((Self.serviceKey, JSONValue.object(["last_message_time": .number(Double(t.milliseconds))]).encoded()))
        }
        return out
    }

    private var loaded = false

    // MARK: - Definitions on the bus

    /// Publishes the conditions' definitions whatever the config says (`DefinitionPublishingService`):
    /// `locus view` draws the fences of a config written without `publish_conditions`.
    public mutating func publishDefinitions() { configuration.publishConditions = true }

    /// With `publish_conditions`, the first message (or command) after a start announces every
    /// condition subscribers have not been told of (all of them on the first start; after a
    /// restart, those added, changed or removed while Locus was down), in id order, at its time:
    /// replays stay deterministic.
    mutating func announceConditionsIfDue(at time: EventTime, output: inout ServiceOutput) {
        guard !unannounced.isEmpty else { return }
        defer { unannounced.removeAll() }
        for rid in unannounced.sorted() { announce(rid, at: time, output: &output) }
    }

    /// Publishes a condition's definition as it is now, or its removal when it is gone.
    func announce(_ rid: String, at time: EventTime, output: inout ServiceOutput) {
        guard configuration.publishConditions else { return }
        output.emit(RegionConditionEvent(region: rid, monitor: id, condition: monitor.condition(rid)),
                    topic: RegionConditionEvent.topicPrefix + rid, time: time)
    }

    // MARK: - Encoding

    /// `region.<kind>.<id>`, and `.<device>` per device.
    static func topic(_ kind: RegionMonitorEvent.Kind, _ body: RegionEventBody) -> String {
        kind.rawValue + "." + body.region + (body.device.map { "." + $0 } ?? "")
    }

    static func emit(_ kind: RegionMonitorEvent.Kind, _ body: RegionEventBody, at time: EventTime, to output: inout ServiceOutput) {
        let topic = topic(kind, body)
        switch kind {
        case .enter: output.emit(RegionEnter(body), topic: topic, time: time)
        case .exit: output.emit(RegionExit(body), topic: topic, time: time)
        case .dwell: output.emit(RegionDwell(body), topic: topic, time: time)
        }
    }
}

extension RegionService: ReportsCounters {
    public var reportedCounters: [String: UInt64] { CounterFields.flatten(counters) }
}
