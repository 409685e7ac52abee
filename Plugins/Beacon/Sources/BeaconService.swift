import Foundation
import LocusBLE
import LocusCore
import Logging

/// Beacon monitoring and ranging, like Core Location's `BeaconIdentityCondition` and ranging:
/// conditions from config and `locus ctl beacon add`, `beacon.enter`/`beacon.exit` with the
/// concrete identity that satisfied a wildcard (`BeaconMonitor`), `beacon.range` with smoothed
/// distances, and state that survives restarts.
///
/// State (`StatefulService`): the runtime keeps it and commits it with the events each batch or
/// command caused (docs/writing-plugins.md, "State"): the conditions added at runtime and the
/// monitor's whole memory — records, deadlines, ranging filters — so a restart, even `kill -9`,
/// gives the output an uninterrupted run gives.
public struct BeaconService: CommandableService, StatefulService {
    public let id: String
    public let configuration: BeaconConfiguration
    let logger: Logger
    var monitor: BeaconMonitor
    /// Definitions of the conditions added at runtime, by id.
    var runtimeDefinitions: [String: JSONValue] = [:]
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
    }

    /// What the runtime keeps.
    public struct State: Codable, Equatable {
        var runtime: [String: JSONValue] = [:]
        var monitor: BeaconMonitor.Snapshot?
        var lastMessageTime: EventTime?
    }

    public var keepsState: Bool { configuration.persist }

    public var state: State {
        get { State(runtime: runtimeDefinitions, monitor: loaded ? monitor.snapshot : nil, lastMessageTime: lastMessageTime) }
        set { restore(newValue) }
    }

    public init(id: String, configuration: BeaconConfiguration, setup: PluginSetup? = nil,
                logger: Logger = Logger(label: "locus.beacon")) throws {
        self.id = id
        self.configuration = configuration
        self.logger = logger
        monitor = BeaconMonitor(monitorID: id, settings: BeaconSettings(configuration))
        if let database = configuration.database {
            logger.warning("database is no longer used: the runtime keeps the beacon state in <state_directory>/services/<id>.sqlite; the old file is not read", metadata: [
                "plugin": "\(id)", "database": "\(database)"])
        }
    }

    public var subscriptions: [String] {
        let ads = configuration.sources.isEmpty ? ["obs.ble."] : configuration.sources.map { "obs.ble.\($0)" }
        return ads + ["clock.tick"]
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
        loadIfNeeded()
        lastMessageTime = message.time
        let events: [BeaconMonitor.Event]
        if let ad = message.payload(BLEAdvertisement.self) {
            if let o = observation(ad, at: message.time) {
                events = monitor.receive(o)
            } else {
                events = monitor.tick(at: message.time)
            }
        } else if message.payload(ClockTick.self) != nil {
            events = monitor.tick(at: message.time)
        } else {
            return
        }
        _ = monitor.takeChanges()
        for e in events { Self.emit(e, at: message.time, to: &output) }
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

    static func emit(_ e: BeaconMonitor.Event, at time: EventTime, to output: inout ServiceOutput) {
        switch e {
        case .enter(let b): output.emit(BeaconEnter(b), topic: BeaconEnterKind.topicPrefix + b.beacon, time: time)
        case .exit(let b): output.emit(BeaconExit(b), topic: BeaconExitKind.topicPrefix + b.beacon, time: time)
        case .range(let r): output.emit(r, topic: "beacon.range." + r.beacon, time: time)
        }
    }

    // MARK: - Start and restart

    /// The config's conditions, on a start without committed state.
    mutating func loadIfNeeded() {
        guard !loaded else { return }
        loaded = true
        for c in configuration.conditions { monitor.put(c) }
        _ = monitor.takeChanges()
    }

    /// A fresh instance given the committed state: config conditions, the runtime ones (a
    /// runtime condition whose id config now defines, or that no longer reads, is dropped and
    /// logged), then the monitor's memory.
    private mutating func restore(_ s: State) {
        loaded = true
        let configured = configuration.conditions
        let configuredIDs = Set(configured.map(\.id))
        for c in configured { monitor.put(c) }
        runtimeDefinitions = [:]
        var replacedByConfig: [String] = []
        for (cid, definition) in s.runtime.sorted(by: { $0.key < $1.key }) {
            if configuredIDs.contains(cid) {
                replacedByConfig.append(cid)
                continue
            }
            do {
                let c = try BeaconCondition(definition: definition, origin: .runtime)
                guard c.id == cid else { throw ServiceStateError("the definition's id is \"\(c.id)\"") }
                monitor.put(c)
                runtimeDefinitions[cid] = definition
            } catch {
                logger.error("a saved beacon condition cannot be read; dropped", metadata: ["condition": "\(cid)", "error": "\(error)"])
            }
        }
        if !replacedByConfig.isEmpty {
            logger.warning("config now defines ids that were added at runtime; the config's definitions are used", metadata: [
                "conditions": "\(replacedByConfig.joined(separator: ","))"])
        }
        if let m = s.monitor { monitor.restore(m) }
        _ = monitor.takeChanges()
        lastMessageTime = s.lastMessageTime
        logger.info("beacon state restored", metadata: ["conditions": "\(monitor.count)"])
    }
}
