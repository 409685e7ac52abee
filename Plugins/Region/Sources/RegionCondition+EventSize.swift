import LocusConditions
import LocusCore

extension RegionCondition {
    /// The largest envelope an event about this condition can take: a transition with every
    /// optional member and a device and source named as long as a topic allows, and, with
    /// `publish_conditions`, its `region.condition` definition. A condition whose events exceed
    /// the hub's limit would have them dropped as `too_large` forever (and again after each
    /// restart), so it is refused where it is defined.
    func largestEventBytes(monitor: String, publishConditions: Bool) -> Int {
        let longest = String(repeating: "x", count: Topic.maxLength)
        let time = EventTime(seconds: 4_102_444_799.999) // 2099-12-31T23:59:59.999Z: the longest form
        var body = RegionEventBody(region: id, monitor: monitor, state: .unsatisfied, previousState: .satisfied,
                                   fix: .init(source: longest, coordinate: Coordinate(latitude: -89.9999999, longitude: -179.9999999),
                                              horizontalAccuracy: 99_999_999.99, time: time),
                                   distance: -99_999_999.99, confidence: 0.9999, since: time, dwell: 99_999_999.999,
                                   assumed: true, detectedAfterRestart: true, properties: properties)
        body.device = longest
        let seq = UInt64(Int64.max)
        var largest = EnvelopeCodec.encode(RegionDwell(body), producer: monitor, seq: seq, time: time).count
        if publishConditions {
            let definition = RegionConditionEvent(region: id, monitor: monitor, condition: self)
            largest = max(largest, EnvelopeCodec.encode(definition, producer: monitor, seq: seq, time: time).count)
        }
        return largest
    }

    /// Why this condition cannot be monitored under a hub limit of `maxMessageBytes`, or nil.
    func eventSizeProblem(monitor: String, publishConditions: Bool, maxMessageBytes: Int) -> String? {
        let bytes = largestEventBytes(monitor: monitor, publishConditions: publishConditions)
        guard bytes > maxMessageBytes else { return nil }
        let what = publishConditions ? "properties or geometry (publish_conditions sends the geometry)" : "properties"
        return "region '\(id)': its events would take up to \(bytes) bytes, over the hub's limit of \(maxMessageBytes) (hub.max_message_bytes), and would never be delivered; make its \(what) smaller, or raise hub.max_message_bytes"
    }
}
