import LocusCore

/// The device has moved significantly (`location.significant`, topic
/// `location.significant.<service-id>`): the first usable fix, then each fix at least
/// `min_distance` from the last published position and `min_interval` after it. The envelope
/// time is the fix's time.
public struct SignificantLocation: Payload, Equatable {
    public static let eventType = "location.significant"
    public static let schemaVersion = 1

    /// The fix source the position came from.
    public var source: String
    /// Degrees north, WGS-84.
    public var latitude: Double
    /// Degrees east, WGS-84.
    public var longitude: Double
    /// Altitude above mean sea level, metres.
    public var altitudeMSL: Double?
    /// 1-sigma horizontal error, metres.
    public var horizontalAccuracy: Double?
    /// Metres from the previously published position; nil for the first.
    public var distance: Double?
    /// Seconds since the previously published position; nil for the first.
    public var elapsed: Double?

    public init(source: String, latitude: Double, longitude: Double, altitudeMSL: Double? = nil,
                horizontalAccuracy: Double? = nil, distance: Double? = nil, elapsed: Double? = nil) {
        self.source = source
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeMSL = altitudeMSL
        self.horizontalAccuracy = horizontalAccuracy
        self.distance = distance
        self.elapsed = elapsed
    }

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("source", source)
        w.field("lat", latitude, fractionDigits: 9)
        w.field("lon", longitude, fractionDigits: 9)
        w.field("alt_msl", altitudeMSL, fractionDigits: 3)
        w.field("h_accuracy", horizontalAccuracy, fractionDigits: 3)
        w.field("distance", distance, fractionDigits: 1)
        w.field("elapsed", elapsed, fractionDigits: 3)
        w.endObject()
    }

    public init(from r: inout JSONReader) throws {
        var source: String?, lat: Double?, lon: Double?
        var alt: Double?, h: Double?, distance: Double?, elapsed: Double?
        try r.readObject { r, k in
            if k == "source" { source = try r.readString() }
            else if k == "lat" { lat = try r.readOptionalDouble() }
            else if k == "lon" { lon = try r.readOptionalDouble() }
            else if k == "alt_msl" { alt = try r.readOptionalDouble() }
            else if k == "h_accuracy" { h = try r.readOptionalDouble() }
            else if k == "distance" { distance = try r.readOptionalDouble() }
            else if k == "elapsed" { elapsed = try r.readOptionalDouble() }
            else { try r.skipValue() }
        }
        guard let source, let lat, let lon else { throw r.error("location.significant needs source, lat, lon") }
        self.init(source: source, latitude: lat, longitude: lon, altitudeMSL: alt, horizontalAccuracy: h,
                  distance: distance, elapsed: elapsed)
    }
}
