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

    /// The record as the runtime keeps it, with its device and condition id: compact JSON with
    /// sorted keys (what `JSONValue.encoded()` gives; a test holds them equal). Written by hand
    /// because a fleet server writes one per device and fix it moves (`JSONValue` was 7 % of
    /// its CPU in bench/mqtt-fleet-bench.sh).
    func encoded(device: String, region: String) -> [UInt8] {
        var w = JSONWriter(capacity: 160 + device.utf8.count + region.utf8.count + fingerprint.utf8.count)
        w.beginObject()
        if assumed { w.key("assumed" as StaticString); w.bool(true) }
        w.key("device" as StaticString); w.string(device)
        if dwellPublished { w.key("dwell_published" as StaticString); w.bool(true) }
        w.key("fingerprint" as StaticString); w.string(fingerprint)
        if let lastEventTime { w.key("last_event_time" as StaticString); w.int(lastEventTime.milliseconds) }
        if let lastEventType { w.key("last_event_type" as StaticString); w.string(lastEventType) }
        w.key("region" as StaticString); w.string(region)
        if let runOrigin { w.key("run_origin" as StaticString); w.int(runOrigin.milliseconds) }
        if let runStart { w.key("run_start" as StaticString); w.int(runStart.milliseconds) }
        if let since { w.key("since" as StaticString); w.int(since.milliseconds) }
        w.key("state" as StaticString); w.string(state.rawValue)
        w.endObject()
        return w.bytes
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
