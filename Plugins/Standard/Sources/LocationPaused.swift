import LocusCore

/// Location updates stop because the device is stationary (`location.paused`, topic
/// `location.paused.<service-id>`; only with `pause_when_stationary`). The envelope time is the
/// time of the fix that completed the stationary time; `location.resumed` follows when the
/// device moves.
public struct LocationPaused: Payload, Equatable {
    public static let eventType = "location.paused"
    public static let schemaVersion = 1

    /// Source of the fix that completed the stationary time.
    public var source: String
    /// Where the device is (that fix): degrees north, WGS-84.
    public var latitude: Double
    /// Degrees east, WGS-84.
    public var longitude: Double
    /// 1-sigma horizontal error of that fix, metres.
    public var horizontalAccuracy: Double?
    /// Seconds the device had been within its uncertainty when the pause began.
    public var stationaryFor: Double

    public init(source: String, latitude: Double, longitude: Double, horizontalAccuracy: Double?, stationaryFor: Double) {
        self.source = source
        self.latitude = latitude
        self.longitude = longitude
        self.horizontalAccuracy = horizontalAccuracy
        self.stationaryFor = stationaryFor
    }

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("source", source)
        w.field("lat", latitude, fractionDigits: 9)
        w.field("lon", longitude, fractionDigits: 9)
        w.field("h_accuracy", horizontalAccuracy, fractionDigits: 3)
        w.field("stationary_for", stationaryFor, fractionDigits: 3)
        w.endObject()
    }

    public init(from r: inout JSONReader) throws {
        var source: String?, lat: Double?, lon: Double?, h: Double?, still: Double?
        try r.readObject { r, k in
            if k == "source" { source = try r.readString() }
            else if k == "lat" { lat = try r.readOptionalDouble() }
            else if k == "lon" { lon = try r.readOptionalDouble() }
            else if k == "h_accuracy" { h = try r.readOptionalDouble() }
            else if k == "stationary_for" { still = try r.readOptionalDouble() }
            else { try r.skipValue() }
        }
        guard let source, let lat, let lon, let still else { throw r.error("location.paused needs source, lat, lon, stationary_for") }
        self.init(source: source, latitude: lat, longitude: lon, horizontalAccuracy: h, stationaryFor: still)
    }
}
