import Foundation
import LocusBLE
import LocusConditions
import LocusCore
import Logging

/// Beacon monitoring and ranging, like Core Location's `BeaconIdentityCondition` and ranging:
/// conditions from config and `locus ctl beacon add`, `beacon.enter`/`beacon.exit` with the
/// concrete identity that satisfied a wildcard (`BeaconMonitor`), `beacon.range` with smoothed
/// distances, and state that survives restarts.
///
/// State (`KeyedStatefulService`): the runtime keeps it and commits the records a batch or a
/// command changed with the events they caused (docs/writing-plugins.md, "State"): each
/// condition added at runtime (`condition/<id>`), each device's memory — records, deadlines,
/// ranging filters — (`device/<device>`, `device/` with one device) and the time of the last
/// message (`service`). So a restart, even `kill -9`, gives the output an uninterrupted run gives.
///
/// Per device (`per_device: true`, for a server fed by many scanners, such as gateways in a
/// fleet): the conditions and commands are shared; each device (the advertisement topic's last
/// segment, `obs.ble.<device>`) has its own monitor, from its first advertisement that matches a
/// condition; events go to `beacon.<kind>.<id>.<device>` with `device` in the payload.
public struct BeaconService: CommandableService, DeviceKeyedService, KeyedStatefulService, ImportsEarlierStateStore {
    public let id: String
    public let configuration: BeaconConfiguration
    let logger: Logger
    /// The conditions, and the one device's memory of them (per device: each device's).
    var monitor: BeaconMonitor
    public var perDevice: Bool { monitor.perDevice }
    /// Per device: devices with a memory at most (`max_devices`).
    let maxDevices: Int
    /// Definitions of the conditions added at runtime, by id.
    var runtimeDefinitions: [String: JSONValue] = [:]
    var lastMessageTime: EventTime?
    private var loaded = false
    public private(set) var counters = Counters()
    /// Records changed since the last `takeStateChanges`, besides the devices' memories.
    private var pendingRecords: [String: JSONValue?] = [:]
    private var committedLastMessageTime: EventTime?
    /// When the runtime took the current command (`commandArrives`); not state.
    var arrivalTime: EventTime?

    public struct Counters: Sendable, Equatable {
        /// Advertisements with no beacon identity (not a beacon, or URL/TLM/EID frames, or undecodable blocks).
        public var withoutIdentity = 0
        /// Advertisements from a source not in `sources`.
        public var otherSources = 0
        /// Advertisements with an RSSI that cannot be real (not -127…20 dBm).
        public var badRSSI = 0
        /// Identities decoded here from raw blocks (a source that did not decode them).
        public var decodedHere = 0
        /// Per device: advertisements of a new device when `max_devices` devices already have
        /// a monitor.
        public var droppedTooManyDevices = 0
        /// Records imported from an earlier version's store that did not read: those
        /// conditions start undecided.
        public var earlierStatesUnusable = 0
    }

    public var keepsState: Bool { configuration.persist }

    /// The ids of the conditions watched, sorted.
    public var conditionIDs: [String] { monitor.ids }
    /// Per device: the devices seen, sorted.
    public var deviceIDs: [String] { monitor.deviceIDs }

    /// The file this service kept its own state in before the runtime did: its runtime
    /// conditions are imported at the first start (`ImportsEarlierStateStore`).
    public let earlierStateStore: EarlierStateStore?

    public init(id: String, configuration: BeaconConfiguration, setup: PluginSetup? = nil,
                logger: Logger = Logger(label: "locus.beacon")) throws {
        self.id = id
        self.configuration = configuration
        self.logger = logger
        maxDevices = setup?.maxDevices ?? PluginSetup.defaultMaxDevices
        monitor = BeaconMonitor(monitorID: id, settings: BeaconSettings(configuration), perDevice: setup?.perDevice ?? false)
        if let database = configuration.database {
            logger.warning("database is no longer used: the runtime keeps the beacon state in <state_directory>/services/<id>.sqlite (it imports the conditions added at runtime from this file at its first start)", metadata: [
                "plugin": "\(id)", "database": "\(database)"])
        }
        earlierStateStore = RuntimeConditions.earlierStore(kind: "beacon", id: id, database: configuration.database, setup: setup,
                                                           stateCollections: ["state": Self.earlierStatePrefix])
    }

    public var subscriptions: [String] {
        let ads = configuration.sources.isEmpty ? ["obs.ble."] : configuration.sources.map { "obs.ble.\($0)" }
        return ads + ["clock.tick"]
    }

    public var produces: [String] { ["beacon.enter.", "beacon.exit.", "beacon.range.", "beacon.state."] }

    public var commands: [ServiceCommand] {
        let perDevice = self.perDevice ? [
            ServiceCommand("beacon.devices", summary: "Devices seen, with the conditions each satisfies; limit=… (default 1000)."),
        ] : []
        return [
            ServiceCommand("beacon.add", summary: "Add (or replace a runtime) condition: id=… and uuid=… [major=… [minor=…]] | altbeacon=<hex prefix> | namespace=… [instance=…]; notify_on_entry, notify_on_exit, ranging, properties."),
            ServiceCommand("beacon.remove", summary: "Remove a condition added at runtime: id=…"),
            ServiceCommand("beacon.list", summary: "Condition ids with state and origin; state=… filters, limit=… (default 1000)."),
            ServiceCommand("beacon.record", summary: "One condition's definition, state, refinement and beacons heard (id=…, and device=… per device); also publishes beacon.state.<id>."),
        ] + perDevice
    }

    // MARK: - Messages

    public mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws {
        loadIfNeeded()
        lastMessageTime = message.time
        if let ad = message.payload(BLEAdvertisement.self) {
            let device = perDevice ? Self.device(of: message.topic) : ""
            let o = observation(ad, at: message.time)
            if let o, perDevice ? startDevice(device, for: o.identity) : true {
                let events = monitor.receive(o, device: device)
                Self.emit(events, device: perDevice ? device : nil, at: message.time, to: &output)
                return
            }
            // Per device, an advertisement moves only its own device's time: thousands of
            // phones heard by a fleet's gateways must not each walk every device.
            if perDevice {
                guard monitor.hasDevice(device) else { return }
                let events = monitor.tick(at: message.time, device: device)
                Self.emit(events, device: device, at: message.time, to: &output)
                return
            }
        } else if message.payload(ClockTick.self) == nil {
            return
        }
        // A tick (or, with one device, an advertisement that matches nothing): deadlines up to now.
        for device in (perDevice ? monitor.deviceIDs : [""]) {
            let events = monitor.tick(at: message.time, device: device)
            Self.emit(events, device: perDevice ? device : nil, at: message.time, to: &output)
        }
    }

    /// The device a per-device message is for: its topic's last segment (`obs.ble.<device>`).
    static func device(of topic: String) -> String {
        guard let dot = topic.lastIndex(of: ".") else { return topic }
        return String(topic[topic.index(after: dot)...])
    }

    /// Per device: whether `device` has a memory, or may have one now that `identity`
    /// matches a condition; false (nothing to do for it) otherwise.
    private mutating func startDevice(_ device: String, for identity: BeaconIdentity) -> Bool {
        if monitor.hasDevice(device) { return true }
        guard !monitor.matching(identity).isEmpty else { return false }
        guard monitor.deviceCount < maxDevices else {
            counters.droppedTooManyDevices += 1
            return false
        }
        return true
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

    static func emit(_ events: [BeaconMonitorEvent], device: String?, at time: EventTime, to output: inout ServiceOutput) {
        let suffix = device.map { "." + $0 } ?? ""
        for e in events {
            switch e {
            case .enter(var b):
                b.device = device
                output.emit(BeaconEnter(b), topic: BeaconEnterKind.topicPrefix + b.beacon + suffix, time: time)
            case .exit(var b):
                b.device = device
                output.emit(BeaconExit(b), topic: BeaconExitKind.topicPrefix + b.beacon + suffix, time: time)
            case .range(var r):
                r.device = device
                output.emit(r, topic: "beacon.range." + r.beacon + suffix, time: time)
            }
        }
    }

    // MARK: - State

    static func conditionKey(_ cid: String) -> String { RuntimeConditions.key(cid) }
    static func deviceKey(_ device: String) -> String { "device/" + device }
    static let serviceKey = "service"

    /// The config's conditions, on a start without committed state.
    mutating func loadIfNeeded() {
        guard !loaded else { return }
        loaded = true
        for c in configuration.conditions { monitor.put(c) }
    }

    /// A condition added or replaced at runtime, for every device, and its record.
    mutating func putRuntime(_ condition: BeaconCondition) {
        monitor.put(condition)
        runtimeDefinitions[condition.id] = condition.definition
        pendingRecords[Self.conditionKey(condition.id)] = .some(condition.definition)
    }

    /// A runtime condition removed for every device, and its record deleted.
    mutating func removeRuntime(_ cid: String) {
        monitor.remove(cid)
        runtimeDefinitions[cid] = nil
        pendingRecords[Self.conditionKey(cid)] = .some(nil)
    }

    /// A fresh instance given the committed records: config conditions, the runtime ones (a
    /// runtime condition whose id config now defines, or that no longer reads, is dropped,
    /// deleted and logged), then each device's memory. A switch between one device and
    /// `per_device` drops the memories of the other shape.
    public mutating func restoreState(_ records: [String: [UInt8]]) throws {
        loaded = true
        let configured = configuration.conditions
        let configuredIDs = Set(configured.map(\.id))
        for c in configured { monitor.put(c) }
        let runtime = try RuntimeConditions.restore(records, configuredIDs: configuredIDs, kind: "beacon", logger: logger) {
            try BeaconCondition(definition: $0, origin: .runtime)
        }
        for c in runtime.kept {
            monitor.put(c)
            runtimeDefinitions[c.id] = c.definition
        }
        for key in runtime.deleted { pendingRecords[key] = .some(nil) }
        var snapshots: [String: BeaconDeviceState.Snapshot] = [:]
        var earlier: [String: BeaconRecord] = [:]
        for (key, bytes) in records.sorted(by: { $0.key < $1.key }) {
            if key.hasPrefix(RuntimeConditions.keyPrefix) {
                continue
            } else if key.hasPrefix(Self.earlierStatePrefix) {
                // Read once: kept below in the current form.
                pendingRecords[key] = .some(nil)
                if let r = (try? JSONValue.read(bytes)).flatMap(BeaconRecord.init(json:)) {
                    earlier[String(key.dropFirst(Self.earlierStatePrefix.count))] = r
                } else {
                    counters.earlierStatesUnusable += 1
                    logger.warning("a state of the earlier beacon store does not read; that condition starts undecided", metadata: [
                        "plugin": "\(id)", "record": "\(key)"])
                }
            } else if key.hasPrefix("device/") {
                let device = String(key.dropFirst("device/".count))
                guard perDevice ? !device.isEmpty : device.isEmpty,
                      let s = try? ServiceStateCoding.decode(BeaconDeviceState.Snapshot.self, from: bytes) else {
                    pendingRecords[key] = .some(nil)
                    continue
                }
                snapshots[device] = s
            } else if key == Self.serviceKey {
                lastMessageTime = (try? JSONValue.read(bytes))?["last_message_time"]?.doubleValue.flatMap { EventTime(jsonMilliseconds: $0) }
                committedLastMessageTime = lastMessageTime
            } else {
                pendingRecords[key] = .some(nil)
            }
        }
        // The conditions put are not changes to store: each device's memory is, when it moves.
        _ = monitor.takeChanges()
        for (device, s) in snapshots.sorted(by: { $0.key < $1.key }) { monitor.restore(device: device, s) }
        if !perDevice && snapshots[""] == nil && !earlier.isEmpty {
            monitor.restore(device: "", Self.snapshot(ofEarlier: earlier), toCommit: true)
        }
        // Debug: the runtime says once at info that the service resumed, with its counts and store.
        logger.debug("beacon state restored", metadata: ["conditions": "\(monitor.count)", "devices": "\(monitor.deviceCount)"])
    }

    public mutating func takeStateChanges() throws -> [(key: String, value: [UInt8]?)] {
        loadIfNeeded()
        var out: [(key: String, value: [UInt8]?)] = pendingRecords.sorted { $0.key < $1.key }.map { ($0.key, $0.value?.encoded()) }
        pendingRecords.removeAll(keepingCapacity: true)
        for (device, _) in monitor.takeChanges() {
            guard let d = monitor.devices[device] else { continue }
            out.append((Self.deviceKey(device), try ServiceStateCoding.encode(d.snapshot)))
        }
        if lastMessageTime != committedLastMessageTime, let t = lastMessageTime {
            committedLastMessageTime = t
            out.append((Self.serviceKey, JSONValue.object(["last_message_time": .number(Double(t.milliseconds))]).encoded()))
        }
        return out
    }
}

extension BeaconService: ReportsCounters {
    public var reportedCounters: [String: UInt64] { CounterFields.flatten(counters) }
}
