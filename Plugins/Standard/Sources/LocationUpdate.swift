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

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("source", source)
        w.field("mode", mode.rawValue)
        // The digits of `obs.fix`: an update carries the fix unchanged.
        w.field("lat", latitude, fractionDigits: 9)
        w.field("lon", longitude, fractionDigits: 9)
        w.field("alt_msl", altitudeMSL, fractionDigits: 3)
        w.field("alt_hae", altitudeHAE, fractionDigits: 3)
        w.field("speed", speed, fractionDigits: 3)
        w.field("course", course.map { Bearing.wireValue($0, fractionDigits: 2) }, fractionDigits: 2)
        w.field("heading", heading.map { Bearing.wireValue($0, fractionDigits: 2) }, fractionDigits: 2)
        w.field("quality", quality?.rawValue)
        w.field("h_accuracy", horizontalAccuracy, fractionDigits: 3)
        w.field("v_accuracy", verticalAccuracy, fractionDigits: 3)
        w.field("speed_accuracy", speedAccuracy, fractionDigits: 3)
        w.field("course_accuracy", courseAccuracy, fractionDigits: 2)
        w.field("is_stationary", isStationary)
        w.endObject()
    }

    public init(from r: inout JSONReader) throws {
        var source: String?, mode: Fix.Mode?, lat: Double?, lon: Double?, stationary: Bool?
        var u = LocationUpdate(source: "", mode: .twoD, latitude: 0, longitude: 0, isStationary: false)
        try r.readObject { r, k in
            if k == "source" { source = try r.readString() }
            else if k == "mode" {
                let m = try r.readString()
                guard let mode0 = Fix.Mode(rawValue: m), mode0 != .none else { throw r.error("location.update mode must be 2d or 3d, found '\(m)'") }
                mode = mode0
            }
            else if k == "lat" { lat = try r.readOptionalDouble() }
            else if k == "lon" { lon = try r.readOptionalDouble() }
            else if k == "alt_msl" { u.altitudeMSL = try r.readOptionalDouble() }
            else if k == "alt_hae" { u.altitudeHAE = try r.readOptionalDouble() }
            else if k == "speed" { u.speed = try r.readOptionalDouble() }
            else if k == "course" { u.course = try r.readOptionalDouble() }
            else if k == "heading" { u.heading = try r.readOptionalDouble() }
            else if k == "quality" {
                if let q = try r.readOptionalString() {
                    guard let quality = Fix.Quality(rawValue: q) else { throw r.error("unknown fix quality '\(q)'") }
                    u.quality = quality
                }
            }
            else if k == "h_accuracy" { u.horizontalAccuracy = try r.readOptionalDouble() }
            else if k == "v_accuracy" { u.verticalAccuracy = try r.readOptionalDouble() }
            else if k == "speed_accuracy" { u.speedAccuracy = try r.readOptionalDouble() }
            else if k == "course_accuracy" { u.courseAccuracy = try r.readOptionalDouble() }
            else if k == "is_stationary" { stationary = try r.readBool() }
            else { try r.skipValue() }
        }
        guard let source, let mode, let lat, let lon, let stationary else {
            throw r.error("location.update needs source, mode, lat, lon, is_stationary")
        }
        u.source = source
        u.mode = mode
        u.latitude = lat
        u.longitude = lon
        u.isStationary = stationary
        self = u
    }
}
