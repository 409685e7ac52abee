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

    public init(from r: inout JSONReader) throws { body = try BeaconEventBody(from: &r) }
}

/// A matching beacon was heard while the condition was not satisfied (`beacon.enter.<id>`).
public typealias BeaconEnter = BeaconEvent<BeaconEnterKind>
/// None was heard for `exit_timeout` (`beacon.exit.<id>`).
public typealias BeaconExit = BeaconEvent<BeaconExitKind>
/// A snapshot of the condition's state, on `beacon add` and `beacon record` (`beacon.state.<id>`).
public typealias BeaconStateSnapshot = BeaconEvent<BeaconStateKind>
