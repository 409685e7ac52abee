import LocusCore

/// Location updates start again because the device moved (`location.resumed`, topic
/// `location.resumed.<service-id>`), after a `location.paused`. The envelope time is the time
/// of the fix that left the stationary circle; its `location.update` follows if the
/// `distance_filter` and `min_interval` let it through.
public struct LocationResumed: Payload, Equatable {
    public static let eventType = "location.resumed"
    public static let schemaVersion = 1

    /// Source of the fix that showed the movement.
    public var source: String
    /// That fix's position: degrees north, WGS-84.
    public var latitude: Double
    /// Degrees east, WGS-84.
    public var longitude: Double
    /// 1-sigma horizontal error of that fix, metres.
    public var horizontalAccuracy: Double?
    /// Metres between that fix and the start of the stationary period.
    public var distance: Double
    /// Seconds since `location.paused`.
    public var pausedFor: Double

    public init(source: String, latitude: Double, longitude: Double, horizontalAccuracy: Double?, distance: Double, pausedFor: Double) {
        self.source = source
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.distance = distance
        self.pausedFor = pausedFor
    }

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("source", source)
        w.field("lat", latitude, fractionDigits: 9)
        w.field("lon", longitude, fractionDigits: 9)
        w.field("h_accuracy", horizontalAccuracy, fractionDigits: 3)
        w.field("distance", distance, fractionDigits: 1)
        w.field("paused_for", pausedFor, fractionDigits: 3)
        w.endObject()
    }

    public init(from r: inout JSONReader) throws {
        var source: String?, lat: Double?, lon: Double?, h: Double?, distance: Double?, paused: Double?
        try r.readObject { r, k in
            if k == "source" { source = try r.readString() }
            else if k == "lat" { lat = try r.readOptionalDouble() }
            else if k == "lon" { lon = try r.readOptionalDouble() }
            else if k == "h_accuracy" { h = try r.readOptionalDouble() }
            else if k == "distance" { distance = try r.readOptionalDouble() }
            else if k == "paused_for" { paused = try r.readOptionalDouble() }
            else { try r.skipValue() }
        }
        guard let source, let lat, let lon, let distance, let paused else {
            throw r.error("location.resumed needs source, lat, lon, distance, paused_for")
        }
        self.init(source: source, latitude: lat, longitude: lon, horizontalAccuracy: h, distance: distance, pausedFor: paused)
    }
}
