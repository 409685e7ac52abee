import LocusConditions
import LocusCore

/// What `beacon.enter`, `beacon.exit` and `beacon.state` carry; they differ only in their type.
public struct BeaconEventBody: Sendable, Equatable {
    /// The condition's id (also the topic's last segment).
    public var beacon: String
    /// The beacon service instance that monitors it.
    public var monitor: String
    /// The scanning device whose state this is (`per_device: true`: the advertisement topic's
    /// last segment); nil with one state for the whole bus.
    public var device: String?
    public var state: BeaconState
    public var previousState: BeaconState
    /// The concrete identity that satisfied the condition, as Core Location's refinement: for
    /// enter the beacon just heard, for exit and state the one heard last. Nil before any.
    public var refinement: BeaconIdentity?
    /// Every matching identity heard in the current (enter, state) or ended (exit) stay, sorted.
    public var beacons: [BeaconIdentity]
    /// Scanner source of the advertisement that caused an enter.
    public var source: String?
    /// Raw RSSI of that advertisement, dBm.
    public var rssi: Int?
    /// When a matching beacon was last heard.
    public var lastHeard: EventTime?
    /// When the current state began: the first advertisement of the stay (satisfied), or the
    /// exit deadline (unsatisfied).
    public var since: EventTime?
    public var properties: [String: JSONValue]

    public init(beacon: String, monitor: String, state: BeaconState, previousState: BeaconState,
                refinement: BeaconIdentity? = nil, beacons: [BeaconIdentity] = [], source: String? = nil, rssi: Int? = nil,
                lastHeard: EventTime? = nil, since: EventTime? = nil, properties: [String: JSONValue] = [:]) {
        self.beacon = beacon
        self.monitor = monitor
        self.state = state
        self.previousState = previousState
        self.refinement = refinement
        self.beacons = beacons
        self.source = source
        self.rssi = rssi
        self.lastHeard = lastHeard
        self.since = since
        self.properties = properties
    }

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("beacon"); w.string(beacon)
        w.key("monitor"); w.string(monitor)
        w.field("device", device)
        w.key("state"); w.string(state.rawValue)
        w.key("previous_state"); w.string(previousState.rawValue)
        if let refinement { w.key("refinement"); w.beginObject(); refinement.writeMembers(to: &w); w.endObject() }
        w.key("beacons"); w.beginArray()
        for b in beacons { w.beginObject(); b.writeMembers(to: &w); w.endObject() }
        w.endArray()
        w.field("source", source)
        w.field("rssi", rssi)
        if let lastHeard { w.key("last_heard"); w.time(lastHeard) }
        if let since { w.key("since"); w.time(since) }
        w.key("properties"); w.rawValue(JSONValue.object(properties).encoded())
        w.endObject()
    }

    var json: JSONValue {
        var w = JSONWriter()
        write(to: &w)
        return (try? JSONValue.decode(w.bytes)) ?? .null
    }

    init(json v: JSONValue) throws {
        guard let beacon = v["beacon"]?.stringValue, let monitor = v["monitor"]?.stringValue,
              let state = v["state"]?.stringValue.flatMap(BeaconState.init(rawValue:)),
              let previous = v["previous_state"]?.stringValue.flatMap(BeaconState.init(rawValue:)) else {
            throw BeaconConditionError("a beacon event needs beacon, monitor, state and previous_state (unknown, satisfied or unsatisfied)")
        }
        func time(_ k: String) -> EventTime? { v[k]?.stringValue.flatMap(EventTime.init(iso8601:)) }
        var beacons: [BeaconIdentity] = []
        if case .array(let a)? = v["beacons"] { beacons = a.compactMap(BeaconIdentity.init(json:)) }
        var properties: [String: JSONValue] = [:]
        if case .object(let p)? = v["properties"] { properties = p }
        self.init(beacon: beacon, monitor: monitor, state: state, previousState: previous,
                  refinement: v["refinement"].flatMap(BeaconIdentity.init(json:)), beacons: beacons,
                  source: v["source"]?.stringValue, rssi: v["rssi"]?.doubleValue.flatMap { Int(exactly: $0.rounded(.towardZero)) },
                  lastHeard: time("last_heard"), since: time("since"), properties: properties)
        device = v["device"]?.stringValue
    }
}

/// The three monitoring event types.
public protocol BeaconEventKind: Sendable {
    static var eventType: String { get }
    /// Topic prefix; the condition id is appended.
    static var topicPrefix: String { get }
}

public enum BeaconEnterKind: BeaconEventKind {
    public static let eventType = "beacon.enter"
    public static let topicPrefix = "beacon.enter."
}

public enum BeaconExitKind: BeaconEventKind {
    public static let eventType = "beacon.exit"
    public static let topicPrefix = "beacon.exit."
}

public enum BeaconStateKind: BeaconEventKind {
    public static let eventType = "beacon.state"
    public static let topicPrefix = "beacon.state."
}

/// A beacon monitoring event of one kind; see `BeaconEventBody` for its members.
public struct BeaconEvent<Kind: BeaconEventKind>: Payload, Equatable {
    public static var eventType: String { Kind.eventType }
    public static var schemaVersion: Int { 1 }
    public var body: BeaconEventBody

    public init(_ body: BeaconEventBody) { self.body = body }

    public func write(to w: inout JSONWriter) { body.write(to: &w) }

    public init(from r: inout JSONReader) throws {
        let raw = Array(try r.readRawValue())
        body = try BeaconEventBody(json: try JSONValue.decode(raw))
    }
}

/// A matching beacon was heard while the condition was not satisfied (`beacon.enter.<id>`).
public typealias BeaconEnter = BeaconEvent<BeaconEnterKind>
/// None was heard for `exit_timeout` (`beacon.exit.<id>`).
public typealias BeaconExit = BeaconEvent<BeaconExitKind>
/// A snapshot of the condition's state, on `beacon add` and `beacon record` (`beacon.state.<id>`).
public typealias BeaconStateSnapshot = BeaconEvent<BeaconStateKind>
