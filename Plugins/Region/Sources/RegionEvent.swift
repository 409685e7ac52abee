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

    func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("region"); w.string(region)
        w.key("monitor"); w.string(monitor)
        if let device { w.key("device"); w.string(device) }
        w.key("state"); w.string(state.rawValue)
        w.key("previous_state"); w.string(previousState.rawValue)
        if let fix {
            w.key("source"); w.string(fix.source)
            w.key("fix_time"); w.time(fix.time)
            w.key("lat"); w.double(fix.coordinate.latitude, fractionDigits: 7)
            w.key("lon"); w.double(fix.coordinate.longitude, fractionDigits: 7)
            w.field("h_accuracy", fix.horizontalAccuracy, fractionDigits: 2)
        }
        w.field("distance", distance, fractionDigits: 2)
        w.field("confidence", confidence, fractionDigits: 4)
        if let since { w.key("since"); w.time(since) }
        w.field("dwell", dwell, fractionDigits: 3)
        w.key("assumed"); w.bool(assumed)
        w.key("detected_after_restart"); w.bool(detectedAfterRestart)
        w.key("properties"); w.rawValue(JSONValue.object(properties).encoded())
        w.endObject()
    }

    init(from r: inout JSONReader) throws {
        var region: String?, monitor: String?, state: RegionState?, previous: RegionState?
        var source: String?, fixTime: EventTime?, lat: Double?, lon: Double?, acc: Double?
        var body = RegionEventBody(region: "", monitor: "", state: .unknown, previousState: .unknown)
        try r.readObject { r, k in
            if k == "region" {
                region = try r.readString()
            } else if k == "monitor" {
                monitor = try r.readString()
            } else if k == "device" {
                body.device = try r.readString()
            } else if k == "state" {
                state = RegionState(rawValue: try r.readString())
            } else if k == "previous_state" {
                previous = RegionState(rawValue: try r.readString())
            } else if k == "source" {
                source = try r.readString()
            } else if k == "fix_time" {
                fixTime = try r.readTime()
            } else if k == "lat" {
                lat = try r.readDouble()
            } else if k == "lon" {
                lon = try r.readDouble()
            } else if k == "h_accuracy" {
                acc = try r.readOptionalDouble()
            } else if k == "distance" {
                body.distance = try r.readOptionalDouble()
            } else if k == "confidence" {
                body.confidence = try r.readOptionalDouble()
            } else if k == "since" {
                body.since = try r.readTime()
            } else if k == "dwell" {
                body.dwell = try r.readOptionalDouble()
            } else if k == "assumed" {
                body.assumed = try r.readBool()
            } else if k == "detected_after_restart" {
                body.detectedAfterRestart = try r.readBool()
            } else if k == "properties" {
                let raw = Array(try r.readRawValue())
                guard case .object(let o) = try JSONValue.decode(raw) else { throw r.error("properties must be an object") }
                body.properties = o
            } else {
                try r.skipValue()
            }
        }
        guard let region, let monitor, let state, let previous else {
            throw r.error("a region event needs region, monitor, state and previous_state (one of unknown, satisfied, unsatisfied)")
        }
        body.region = region
        body.monitor = monitor
        body.state = state
        body.previousState = previous
        if let source, let fixTime, let lat, let lon {
            body.fix = TriggeringFix(source: source, coordinate: Coordinate(latitude: lat, longitude: lon),
                                     horizontalAccuracy: acc, time: fixTime)
        }
        self = body
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
