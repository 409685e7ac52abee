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
}
