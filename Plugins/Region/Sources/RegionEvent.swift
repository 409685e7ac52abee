import LocusConditions
import LocusCore

/// What every region event carries: `region.enter`, `region.exit`, `region.dwell` and
/// `region.state` differ only in their type (see `RegionEventKind`).
public struct RegionEventBody: Sendable, Equatable {
    /// The condition's id (also the topic's last segment).
    public var region: String
    /// The region service instance that monitors it.
    public var monitor: String
    /// The device, when the service keeps one state per device (`per_device`); also the
    /// topic's last segment then.
    public var device: String?
    public var state: RegionState
    public var previousState: RegionState
    /// The fix that triggered the event (transitions and dwell); nil for a state snapshot
    /// taken before any usable fix.
    public var fix: TriggeringFix?
    /// Metres from the fix to the boundary: positive inside, negative outside.
    public var distance: Double?
    /// Probability that the device is on the side `state` says, from the fix's distance to the
    /// boundary and its accuracy (a normal error with sigma = h_accuracy across the boundary).
    public var confidence: Double?
    /// When the device was first seen on the new side (enter/exit), or entered (dwell).
    public var since: EventTime?
    /// Seconds inside, for dwell events.
    public var dwell: Double?
    /// The state was assumed (`region add … assuming=`) and no fix has confirmed it yet.
    public var assumed: Bool
    /// The transition happened while Locus was not running: its first decisive fix after a
    /// restart found the device on the other side.
    public var detectedAfterRestart: Bool
    /// The condition's user properties, echoed.
    public var properties: [String: JSONValue]

    public struct TriggeringFix: Sendable, Equatable {
        public var source: String
        public var coordinate: Coordinate
        public var horizontalAccuracy: Double?
        public var time: EventTime
    }

    public init(region: String, monitor: String, state: RegionState, previousState: RegionState,
                fix: TriggeringFix? = nil, distance: Double? = nil, confidence: Double? = nil, since: EventTime? = nil,
                dwell: Double? = nil, assumed: Bool = false, detectedAfterRestart: Bool = false,
                properties: [String: JSONValue] = [:]) {
        self.region = region
        self.monitor = monitor
        self.state = state
        self.previousState = previousState
        self.fix = fix
        self.distance = distance
        self.confidence = confidence
        self.since = since
        self.dwell = dwell
        self.assumed = assumed
        self.detectedAfterRestart = detectedAfterRestart
        self.properties = properties
    }

    /// The body its wire form describes (the `build` of schemas/region.state.schema.json, for
    /// tools/payloadgen.py): the triggering fix is there when all its members are.
    static func fromWire(region: String, monitor: String, device: String?, state: RegionState, previousState: RegionState,
                         source: String?, fixTime: EventTime?, lat: Double?, lon: Double?, hAccuracy: Double?,
                         distance: Double?, confidence: Double?, since: EventTime?, dwell: Double?, assumed: Bool,
                         detectedAfterRestart: Bool, properties: [String: JSONValue]) -> RegionEventBody {
        var body = RegionEventBody(region: region, monitor: monitor, state: state, previousState: previousState,
                                   distance: distance, confidence: confidence, since: since, dwell: dwell, assumed: assumed,
                                   detectedAfterRestart: detectedAfterRestart, properties: properties)
        body.device = device
        if let source, let fixTime, let lat, let lon {
            body.fix = TriggeringFix(source: source, coordinate: Coordinate(latitude: lat, longitude: lon),
                                     horizontalAccuracy: hAccuracy, time: fixTime)
        }
        return body
    }
}

/// The four region event types.
public protocol RegionEventKind: Sendable {
    static var eventType: String { get }
    /// Topic prefix; the condition id is appended.
    static var topicPrefix: String { get }
}

public enum RegionEnterKind: RegionEventKind {
    public static let eventType = "region.enter"
    public static let topicPrefix = "region.enter."
}

public enum RegionExitKind: RegionEventKind {
    public static let eventType = "region.exit"
    public static let topicPrefix = "region.exit."
}

public enum RegionDwellKind: RegionEventKind {
    public static let eventType = "region.dwell"
    public static let topicPrefix = "region.dwell."
}

public enum RegionStateKind: RegionEventKind {
    public static let eventType = "region.state"
    public static let topicPrefix = "region.state."
}

/// A region event of one kind; see `RegionEventBody` for its members.
public struct RegionEvent<Kind: RegionEventKind>: Payload, Equatable {
    public static var eventType: String { Kind.eventType }
    public static var schemaVersion: Int { 1 }
    public var body: RegionEventBody

    public init(_ body: RegionEventBody) { self.body = body }

    public func write(to w: inout JSONWriter) { body.write(to: &w) }

    public init(from r: inout JSONReader) throws { body = try RegionEventBody(from: &r) }
}

/// The device entered the region (`region.enter.<id>`).
public typealias RegionEnter = RegionEvent<RegionEnterKind>
/// The device left the region (`region.exit.<id>`).
public typealias RegionExit = RegionEvent<RegionExitKind>
/// The device has stayed inside for the condition's `dwell` (`region.dwell.<id>`).
public typealias RegionDwell = RegionEvent<RegionDwellKind>
/// A snapshot of the condition's state, on add and on request (`region.state.<id>`).
public typealias RegionStateSnapshot = RegionEvent<RegionStateKind>
