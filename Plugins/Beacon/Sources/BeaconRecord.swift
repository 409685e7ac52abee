import LocusConditions
import LocusCore

/// What the service remembers about one condition between advertisements and across restarts.
/// Ranging filters are not part of it: they converge again within seconds of a restart.
public struct BeaconRecord: Sendable, Equatable, ConditionRecording {
    public var state: BeaconState = .unknown
    /// Never set for beacons (no `assuming` yet); part of the shared machine.
    public var assumed = false
    /// Never set for beacons (no dwell yet); part of the shared machine.
    public var dwellPublished = false
    /// When the current state began (see `BeaconEventBody.since`).
    public var since: EventTime?
    /// When a matching beacon was last heard.
    public var lastHeard: EventTime?
    /// The concrete identity heard last.
    public var refinement: BeaconIdentity?
    /// Matching identities heard in the current stay (satisfied only), at most `maxStayBeacons`.
    public var beacons: Set<BeaconIdentity> = []
    /// Type and time of the last event published for this condition.
    public var lastEventType: String?
    public var lastEventTime: EventTime?
    /// `BeaconCondition.fingerprint` of the match this state belongs to.
    public var fingerprint: String

    /// A wildcard condition over a whole fleet keeps at most this many identities per stay.
    static let maxStayBeacons = 1024

    public init(fingerprint: String) { self.fingerprint = fingerprint }

    var json: JSONValue {
        var o: [String: JSONValue] = ["state": .string(state.rawValue), "fingerprint": .string(fingerprint)]
        if assumed { o["assumed"] = .bool(true) }
        if dwellPublished { o["dwell_published"] = .bool(true) }
        if let since { o["since"] = .number(Double(since.milliseconds)) }
        if let lastHeard { o["last_heard"] = .number(Double(lastHeard.milliseconds)) }
        if let refinement { o["refinement"] = refinement.json }
        if !beacons.isEmpty { o["beacons"] = .array(beacons.sorted().map(\.json)) }
        if let lastEventType { o["last_event_type"] = .string(lastEventType) }
        if let lastEventTime { o["last_event_time"] = .number(Double(lastEventTime.milliseconds)) }
        return .object(o)
    }

    init?(json: JSONValue) {
        guard let raw = json["state"]?.stringValue, let state = BeaconState(rawValue: raw),
              let fingerprint = json["fingerprint"]?.stringValue else { return nil }
        func time(_ key: String) -> EventTime? { json[key]?.doubleValue.flatMap { EventTime(jsonMilliseconds: $0) } }
        self.fingerprint = fingerprint
        self.state = state
        if case .bool(true)? = json["assumed"] { assumed = true }
        if case .bool(true)? = json["dwell_published"] { dwellPublished = true }
        since = time("since")
        lastHeard = time("last_heard")
        refinement = json["refinement"].flatMap(BeaconIdentity.init(json:))
        if case .array(let a)? = json["beacons"] { beacons = Set(a.compactMap(BeaconIdentity.init(json:))) }
        lastEventType = json["last_event_type"]?.stringValue
        lastEventTime = time("last_event_time")
    }

    /// As `beacon record` shows it.
    var recordJSON: JSONValue {
        var o: [String: JSONValue] = ["state": .string(state.rawValue)]
        if let since { o["since"] = .string(since.iso8601) }
        if let lastHeard { o["last_heard"] = .string(lastHeard.iso8601) }
        if let refinement { o["refinement"] = refinement.json }
        o["beacons"] = .array(beacons.sorted().map(\.json))
        if let lastEventType, let lastEventTime {
            o["last_event"] = .object(["type": .string(lastEventType), "time": .string(lastEventTime.iso8601)])
        }
        return .object(o)
    }
}

/// As its JSON form (`json`): the runtime keeps records in a beacon service's state.
extension BeaconRecord: Codable {
    public init(from decoder: any Decoder) throws {
        guard let record = BeaconRecord(json: try JSONValue(from: decoder)) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not a beacon record"))
        }
        self = record
    }

    public func encode(to encoder: any Encoder) throws { try json.encode(to: encoder) }
}
