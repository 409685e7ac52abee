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
}
