import LocusCore
import LocusFormats

/// Locus events as OwnTracks JSON messages (owntracks.org/booklet/tech/json), for Home
/// Assistant's `owntracks` integration, OwnTracks Recorder and Traccar's OwnTracks port:
///
/// - `location.update` → `{"_type":"location",…}` on `owntracks/<user>/<device>`;
/// - `region.enter`/`region.exit` and `beacon.enter`/`beacon.exit` →
///   `{"_type":"transition","event":"enter"|"leave",…}` on `owntracks/<user>/<device>/event`;
/// - `region.condition` (a region service's `publish_conditions`) of a circle →
///   `{"_type":"waypoint",…}` on `owntracks/<user>/<device>/waypoint`, as the OwnTracks apps
///   publish a geofence created on the phone. OwnTracks regions are circles: polygons, and
///   removals (OwnTracks has no message for them), are not sent.
///
/// Units are OwnTracks': integer metres for `acc`, `alt`, `vac`; integer km/h for `vel`; epoch
/// seconds for `tst`/`wtst`. Home Assistant drops a location whose `acc` is missing or 0 and
/// matches a transition to its zones by `desc`, so both are always sent: `acc` is at least 1
/// (`unknown_accuracy` when the fix had none) and `desc` is the region's `name` property, or its id.
/// Other events have no OwnTracks form and are not sent (counted as `not_converted`).
public struct OwnTracksFormat {
    public struct Message: Equatable {
        /// Appended to the base topic: "" for locations, "/event" for transitions.
        public var topicSuffix: String
        public var json: [UInt8]
    }

    let trackerId: String
    let unknownAccuracy: Int
    /// The last location sent: a beacon transition has no position of its own and takes it.
    private(set) var lastPosition: (lat: Double, lon: Double, acc: Int)?

    public init(trackerId: String, unknownAccuracy: Int) {
        self.trackerId = trackerId
        self.unknownAccuracy = unknownAccuracy
    }

    /// The OwnTracks message for one Locus event, or nil if it has none.
    public mutating func convert(topic: String, body: UnsafeRawBufferPointer) -> Message? {
        // OwnTracks times are epoch seconds: an event before 1970 has none.
        guard let envelope = try? JSONValue.decode(Array(body)), let type = envelope["type"]?.stringValue,
              let payload = envelope["payload"], let time = envelope["time"]?.stringValue.flatMap(EventTime.init(iso8601:)),
              time.milliseconds >= 1000 else {
            return nil
        }
        switch type {
        case "location.update": return location(payload, time: time)
        case "region.enter", "region.exit": return regionTransition(payload, enter: type == "region.enter", time: time)
        case "beacon.enter", "beacon.exit": return beaconTransition(payload, enter: type == "beacon.enter", time: time)
        case "region.condition": return waypoint(payload)
        default: return nil
        }
    }

    private func accuracy(_ value: Double?) -> Int {
        guard let value, IncomingLocation.accuracyRange.contains(value), let n = Self.integer(value) else { return max(1, unknownAccuracy) }
        return max(1, n)
    }

    /// `value` rounded, if it is a number an OwnTracks consumer can take (Int(_:) would trap on
    /// an infinite or huge one, which an outside publisher's event may carry).
    static func integer(_ value: Double) -> Int? {
        guard value.isFinite, abs(value) < 1e12 else { return nil }
        return Int(value.rounded())
    }

    static func validPosition(_ lat: Double, _ lon: Double) -> Bool {
        lat.isFinite && lon.isFinite && (-90...90).contains(lat) && (-180...180).contains(lon)
    }

    private static func epochSeconds(_ t: EventTime) -> Int { Int((Double(t.milliseconds) / 1000).rounded(.down)) }

    private mutating func location(_ p: JSONValue, time: EventTime) -> Message? {
        guard let lat = p["lat"]?.doubleValue, let lon = p["lon"]?.doubleValue, Self.validPosition(lat, lon) else { return nil }
        let acc = accuracy(p["h_accuracy"]?.doubleValue)
        lastPosition = (lat, lon, acc)
        var w = JSONWriter(capacity: 192)
        w.beginObject()
        w.key("_type"); w.string("location")
        w.key("lat"); w.double(lat, fractionDigits: 7)
        w.key("lon"); w.double(lon, fractionDigits: 7)
        w.key("acc"); w.int(acc)
        // Only values a reader accepts (IncomingLocation's ranges); others are left out.
        if let alt = p["alt_msl"]?.doubleValue, IncomingLocation.altitudeRange.contains(alt), let n = Self.integer(alt) {
            w.key("alt"); w.int(n)
        }
        if let vac = p["v_accuracy"]?.doubleValue, IncomingLocation.accuracyRange.contains(vac), let n = Self.integer(vac) {
            w.key("vac"); w.int(n)
        }
        if let speed = p["speed"]?.doubleValue, IncomingLocation.speedRange.contains(speed), let n = Self.integer(speed * 3.6) {
            w.key("vel"); w.int(n)
        }
        if let cog = p["course"]?.doubleValue.flatMap(Self.integer), cog >= 0 { w.key("cog"); w.int(cog % 360) }
        w.key("tst"); w.int(Self.epochSeconds(time))
        w.key("tid"); w.string(trackerId)
        // The report's trigger: "p" a ping (a regular update). Locus does not say which app
        // feature asked for it; "p" is what OwnTracks consumers treat as a plain position.
        w.key("t"); w.string("p")
        w.endObject()
        return Message(topicSuffix: "", json: w.bytes)
    }

    private func regionTransition(_ p: JSONValue, enter: Bool, time: EventTime) -> Message? {
        guard let region = p["region"]?.stringValue, let lat = p["lat"]?.doubleValue, let lon = p["lon"]?.doubleValue,
              Self.validPosition(lat, lon) else { return nil }
        var fixTime = p["fix_time"]?.stringValue.flatMap(EventTime.init(iso8601:)) ?? time
        if fixTime.milliseconds < 1000 { fixTime = time }
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

    /// A circle's definition as an OwnTracks waypoint. Its `tst` is the transitions' `wtst`, so
    /// a consumer matches them (OwnTracks identifies a waypoint by that time); `rid` is the id.
    private func waypoint(_ p: JSONValue) -> Message? {
        guard p["removed"] == .bool(false), let region = p["region"]?.stringValue,
              p["geometry"]?["type"]?.stringValue == "Point", case .array(let position)? = p["geometry"]?["coordinates"],
              position.count >= 2, let lon = position[0].doubleValue, let lat = position[1].doubleValue,
              Self.validPosition(lat, lon), let radius = p["radius"]?.doubleValue.flatMap(Self.integer), radius >= 0 else {
            return nil
        }
        var w = JSONWriter(capacity: 160)
        w.beginObject()
        w.key("_type"); w.string("waypoint")
        w.key("desc"); w.string(p["properties"]?["name"]?.stringValue ?? region)
        w.key("lat"); w.double(lat, fractionDigits: 7)
        w.key("lon"); w.double(lon, fractionDigits: 7)
        // OwnTracks radii are whole metres; a fence under 1 m still needs a region.
        w.key("rad"); w.int(max(1, radius))
        w.key("rid"); w.string(region)
        w.key("tst"); w.int(Self.waypointTime((p["monitor"]?.stringValue ?? "") + "/" + region))
        w.endObject()
        return Message(topicSuffix: "/waypoint", json: w.bytes)
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
