import LocusConditions
import LocusCore

/// What the service remembers about one condition between fixes and across restarts.
public struct ConditionRecord: Sendable, Equatable, ConditionRecording {
    public var state: RegionState = .unknown
    /// `state` was given by `assuming` and no fix has confirmed it yet.
    public var assumed = false
    /// When the device was first seen on the side `state` says (for satisfied: the enter time dwell counts from).
    public var since: EventTime?
    /// First fix of the current run of fixes placing the device decisively on the other side.
    public var runStart: EventTime?
    /// The last usable fix before that run: the hysteresis clock runs from here, so a run that
    /// follows a gap (or a restart) is confirmed by its first fix.
    public var runOrigin: EventTime?
    /// `region.dwell` was published for the current stay.
    public var dwellPublished = false
    /// Type and time of the last event published for this condition.
    public var lastEventType: String?
    public var lastEventTime: EventTime?
    /// `RegionCondition.fingerprint` of the shape this state belongs to.
    public var fingerprint: String

    public init(fingerprint: String) { self.fingerprint = fingerprint }

    /// Undecided conditions, conditions inside and conditions with a pending run must be
    /// checked against every fix; all others are outside, and only the index can change that.
    var needsEveryFix: Bool { state != .unsatisfied || assumed || runStart != nil }

    var json: JSONValue {
        var o: [String: JSONValue] = ["state": .string(state.rawValue), "fingerprint": .string(fingerprint)]
        if assumed { o["assumed"] = .bool(true) }
        if let since { o["since"] = .number(Double(since.milliseconds)) }
        if let runStart { o["run_start"] = .number(Double(runStart.milliseconds)) }
        if let runOrigin { o["run_origin"] = .number(Double(runOrigin.milliseconds)) }
        if dwellPublished { o["dwell_published"] = .bool(true) }
        if let lastEventType { o["last_event_type"] = .string(lastEventType) }
        if let lastEventTime { o["last_event_time"] = .number(Double(lastEventTime.milliseconds)) }
        return .object(o)
    }

    init?(json: JSONValue) {
        guard let raw = json["state"]?.stringValue, let state = RegionState(rawValue: raw),
              let fingerprint = json["fingerprint"]?.stringValue else { return nil }
        func time(_ key: String) -> EventTime? { json[key]?.doubleValue.flatMap { EventTime(jsonMilliseconds: $0) } }
        func flag(_ key: String) -> Bool { if case .bool(true)? = json[key] { true } else { false } }
        self.fingerprint = fingerprint
        self.state = state
        assumed = flag("assumed")
        since = time("since")
        runStart = time("run_start")
        runOrigin = time("run_origin")
        dwellPublished = flag("dwell_published")
        lastEventType = json["last_event_type"]?.stringValue
        lastEventTime = time("last_event_time")
    }

    /// As `region record` shows it.
    var recordJSON: JSONValue {
        var o: [String: JSONValue] = ["state": .string(state.rawValue), "assumed": .bool(assumed),
                                      "dwell_published": .bool(dwellPublished)]
        if let since { o["since"] = .string(since.iso8601) }
        if let runStart {
            o["pending"] = .object(["toward": .string(state.opposite.rawValue), "first_fix": .string(runStart.iso8601),
                                    "clock_from": .string((runOrigin ?? runStart).iso8601)])
        }
        if let lastEventType, let lastEventTime {
            o["last_event"] = .object(["type": .string(lastEventType), "time": .string(lastEventTime.iso8601)])
        }
        return .object(o)
    }
}
