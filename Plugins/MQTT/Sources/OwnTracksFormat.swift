import LocusCore

/// Locus events as OwnTracks JSON messages (owntracks.org/booklet/tech/json), for Home
/// Assistant's `owntracks` integration, OwnTracks Recorder and Traccar's OwnTracks port:
///
/// - `location.update` → `{"_type":"location",…}` on `owntracks/<user>/<device>`;
/// - `region.enter`/`region.exit` and `beacon.enter`/`beacon.exit` →
///   `{"_type":"transition","event":"enter"|"leave",…}` on `owntracks/<user>/<device>/event`.
///
/// Units are OwnTracks': integer metres for `acc`, `alt`, `vac`; integer km/h for `vel`; epoch
/// seconds for `tst`/`wtst`. Home Assistant drops a location whose `acc` is missing or 0 and
/// matches a transition to its zones by `desc`, so both are always sent: `acc` is at least 1
/// (`unknown_accuracy` when the fix had none) and `desc` is the region's `name` property, or its id.
/// Other events have no OwnTracks form and are not sent (counted as `not_converted`).
struct OwnTracksFormat {
    struct Message: Equatable {
        /// Appended to the base topic: "" for locations, "/event" for transitions.
        var topicSuffix: String
        var json: [UInt8]
    }

    let trackerId: String
    let unknownAccuracy: Int
    /// The last location sent: a beacon transition has no position of its own and takes it.
    private(set) var lastPosition: (lat: Double, lon: Double, acc: Int)?

    init(trackerId: String, unknownAccuracy: Int) {
        self.trackerId = trackerId
        self.unknownAccuracy = unknownAccuracy
    }

    /// The OwnTracks message for one Locus event, or nil if it has none.
    mutating func convert(topic: String, body: UnsafeRawBufferPointer) -> Message? {
        guard let envelope = try? JSONValue.decode(Array(body)), let type = envelope["type"]?.stringValue,
              let payload = envelope["payload"], let time = envelope["time"]?.stringValue.flatMap(EventTime.init(iso8601:)) else {
            return nil
        }
        switch type {
        case "location.update": return location(payload, time: time)
        case "region.enter", "region.exit": return regionTransition(payload, enter: type == "region.enter", time: time)
        case "beacon.enter", "beacon.exit": return beaconTransition(payload, enter: type == "beacon.enter", time: time)
        default: return nil
        }
    }

    private func accuracy(_ value: Double?) -> Int {
        guard let value, value.isFinite else { return max(1, unknownAccuracy) }
        return max(1, Int(value.rounded()))
    }

    private static func epochSeconds(_ t: EventTime) -> Int { Int((Double(t.milliseconds) / 1000).rounded(.down)) }

    private mutating func location(_ p: JSONValue, time: EventTime) -> Message? {
        guard let lat = p["lat"]?.doubleValue, let lon = p["lon"]?.doubleValue else { return nil }
        let acc = accuracy(p["h_accuracy"]?.doubleValue)
        lastPosition = (lat, lon, acc)
        var w = JSONWriter(capacity: 192)
        w.beginObject()
        w.key("_type"); w.string("location")
        w.key("lat"); w.double(lat, fractionDigits: 7)
        w.key("lon"); w.double(lon, fractionDigits: 7)
        w.key("acc"); w.int(acc)
        if let alt = p["alt_msl"]?.doubleValue, alt.isFinite { w.key("alt"); w.int(Int(alt.rounded())) }
        if let vac = p["v_accuracy"]?.doubleValue, vac.isFinite { w.key("vac"); w.int(Int(vac.rounded())) }
        if let speed = p["speed"]?.doubleValue, speed.isFinite { w.key("vel"); w.int(Int((speed * 3.6).rounded())) }
        if let course = p["course"]?.doubleValue, course.isFinite { w.key("cog"); w.int(Int(course.rounded()) % 360) }
        w.key("tst"); w.int(Self.epochSeconds(time))
        w.key("tid"); w.string(trackerId)
        // The report's trigger: "p" a ping (a regular update). Locus does not say which app
        // feature asked for it; "p" is what OwnTracks consumers treat as a plain position.
        w.key("t"); w.string("p")
        w.endObject()
        return Message(topicSuffix: "", json: w.bytes)
    }

    private func regionTransition(_ p: JSONValue, enter: Bool, time: EventTime) -> Message? {
        guard let region = p["region"]?.stringValue, let lat = p["lat"]?.doubleValue, let lon = p["lon"]?.doubleValue else { return nil }
        let fixTime = p["fix_time"]?.stringValue.flatMap(EventTime.init(iso8601:)) ?? time
        let name = p["properties"]?["name"]?.stringValue ?? region
        return transition(enter: enter, desc: name, rid: region, trigger: "c", lat: lat, lon: lon,
                          acc: accuracy(p["h_accuracy"]?.doubleValue), tst: fixTime, key: (p["monitor"]?.stringValue ?? "") + "/" + region)
    }

    private func beaconTransition(_ p: JSONValue, enter: Bool, time: EventTime) -> Message? {
        guard let beacon = p["beacon"]?.stringValue, let position = lastPosition else { return nil }
        let name = p["properties"]?["name"]?.stringValue ?? beacon
        return transition(enter: enter, desc: name, rid: beacon, trigger: "b", lat: position.lat, lon: position.lon,
                          acc: position.acc, tst: time, key: (p["monitor"]?.stringValue ?? "") + "/" + beacon)
    }

    private func transition(enter: Bool, desc: String, rid: String, trigger: String, lat: Double, lon: Double, acc: Int,
                            tst: EventTime, key: String) -> Message {
        var w = JSONWriter(capacity: 192)
        w.beginObject()
        w.key("_type"); w.string("transition")
        w.key("event"); w.string(enter ? "enter" : "leave")
        w.key("desc"); w.string(desc)
        w.key("rid"); w.string(rid)
        w.key("t"); w.string(trigger)
        w.key("lat"); w.double(lat, fractionDigits: 7)
        w.key("lon"); w.double(lon, fractionDigits: 7)
        w.key("acc"); w.int(acc)
        w.key("tst"); w.int(Self.epochSeconds(tst))
        w.key("wtst"); w.int(Self.waypointTime(key))
        w.key("tid"); w.string(trackerId)
        w.endObject()
        return Message(topicSuffix: "/event", json: w.bytes)
    }

    /// OwnTracks identifies a waypoint by its creation time (`wtst`); Locus regions come from
    /// config and have none, so each gets a stable stand-in: a 31-bit FNV-1a hash of
    /// "<service>/<region>", the same on every device and every run.
    static func waypointTime(_ key: String) -> Int {
        var h: UInt32 = 2_166_136_261
        for b in key.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        return Int(h & 0x7FFF_FFFF)
    }
}
