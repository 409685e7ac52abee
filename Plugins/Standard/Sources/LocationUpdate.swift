import LocusCore

/// The current location (`location.update`, topic `location.update.<service-id>`): the fix the
/// standard service chose, with the source it came from. The envelope time is the fix's time.
///
/// Units as in `obs.fix`: degrees (WGS-84), metres, m/s; accuracies are 1-sigma.
public struct LocationUpdate: Payload, Equatable {
    public static let eventType = "location.update"
    public static let schemaVersion = 1

    /// The fix source the location came from.
    public var source: String
    /// `2d` or `3d`: an update always has a position.
    public var mode: Fix.Mode
    /// Degrees north, WGS-84.
    public var latitude: Double
    /// Degrees east, WGS-84.
    public var longitude: Double
    /// Altitude above mean sea level, metres.
    public var altitudeMSL: Double?
    /// Height above the WGS-84 ellipsoid, metres.
    public var altitudeHAE: Double?
    /// Speed over ground, m/s.
    public var speed: Double?
    /// Course over ground, degrees clockwise from true north.
    public var course: Double?
    /// Where the device points, degrees clockwise from true north.
    public var heading: Double?
    /// How the source obtained the fix (`simulated` marks made-up data).
    public var quality: Fix.Quality?
    /// 1-sigma horizontal error, metres.
    public var horizontalAccuracy: Double?
    /// 1-sigma vertical error, metres.
    public var verticalAccuracy: Double?
    /// 1-sigma speed error, m/s.
    public var speedAccuracy: Double?
    /// 1-sigma course error, degrees.
    public var courseAccuracy: Double?
    /// True when the device has stayed within its uncertainty for the configured stationary time.
    public var isStationary: Bool

    public init(source: String, mode: Fix.Mode, latitude: Double, longitude: Double, altitudeMSL: Double? = nil,
                altitudeHAE: Double? = nil, speed: Double? = nil, course: Double? = nil, heading: Double? = nil,
                quality: Fix.Quality? = nil, horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil,
                speedAccuracy: Double? = nil, courseAccuracy: Double? = nil, isStationary: Bool) {
        self.source = source
        self.mode = mode
        self.latitude = latitude
        self.longitude = longitude
        self.altitudeMSL = altitudeMSL
        self.altitudeHAE = altitudeHAE
        self.speed = speed
        self.course = course
        self.heading = heading
        self.quality = quality
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speedAccuracy = speedAccuracy
        self.courseAccuracy = courseAccuracy
        self.isStationary = isStationary
    }

    /// The update for a fix with a position (`nil` for a fix without one).
    public init?(fix: Fix, isStationary: Bool) {
        guard fix.hasPosition, let lat = fix.latitude, let lon = fix.longitude else { return nil }
        self.init(source: fix.source, mode: fix.mode, latitude: lat, longitude: lon, altitudeMSL: fix.altitudeMSL,
                  altitudeHAE: fix.altitudeHAE, speed: fix.speed, course: fix.course, heading: fix.heading,
                  quality: fix.quality, horizontalAccuracy: fix.horizontalAccuracy, verticalAccuracy: fix.verticalAccuracy,
                  speedAccuracy: fix.speedAccuracy, courseAccuracy: fix.courseAccuracy, isStationary: isStationary)
    }
}
