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
}
