/// A position fix from a GNSS receiver or another positioning source (`obs.fix`, topic `obs.fix.<source>`).
///
/// Units: degrees (WGS-84) for latitude/longitude/course/heading, metres for altitudes and
/// accuracies, m/s for speed. Accuracies are 1-sigma estimates (about 68 % for one axis,
/// 39–63 % for the horizontal radius), the convention of Core Location's `horizontalAccuracy`.
public struct Fix: Payload, Equatable {
    public static let eventType = "obs.fix"
    public static let schemaVersion = 1

    public enum Mode: String, Sendable, CaseIterable { case none, twoD = "2d", threeD = "3d" }
    public enum Quality: String, Sendable, CaseIterable {
        case gps, dgps, pps, rtkFixed = "rtk_fixed", rtkFloat = "rtk_float"
        case deadReckoning = "dead_reckoning", estimated, manual, simulated
    }

    /// Id of the source that observed the fix (the last topic segment).
    public var source: String
    public var mode: Mode
    public var latitude: Double?
    public var longitude: Double?
    /// Altitude above mean sea level (geoid), metres.
    public var altitudeMSL: Double?
    /// Altitude above the WGS-84 ellipsoid, metres.
    public var altitudeHAE: Double?
    /// Speed over ground, m/s.
    public var speed: Double?
    /// Course over ground, degrees clockwise from true north.
    public var course: Double?
    /// Heading (where the device points), degrees clockwise from true north.
    public var heading: Double?
    public var quality: Quality?
    public var satellitesUsed: Int?
    public var hdop: Double?
    public var vdop: Double?
    public var pdop: Double?
    /// 1-sigma horizontal position error, metres.
    public var horizontalAccuracy: Double?
    /// 1-sigma vertical position error, metres.
    public var verticalAccuracy: Double?
    /// 1-sigma speed error, m/s.
    public var speedAccuracy: Double?
    /// 1-sigma course error, degrees.
    public var courseAccuracy: Double?

    public init(source: String, mode: Mode, latitude: Double? = nil, longitude: Double? = nil,
                altitudeMSL: Double? = nil, altitudeHAE: Double? = nil, speed: Double? = nil,
                course: Double? = nil, heading: Double? = nil, quality: Quality? = nil,
                satellitesUsed: Int? = nil, hdop: Double? = nil, vdop: Double? = nil, pdop: Double? = nil,
                horizontalAccuracy: Double? = nil, verticalAccuracy: Double? = nil,
                speedAccuracy: Double? = nil, courseAccuracy: Double? = nil) {
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
        self.satellitesUsed = satellitesUsed
        self.hdop = hdop
        self.vdop = vdop
        self.pdop = pdop
        self.horizontalAccuracy = horizontalAccuracy
        self.verticalAccuracy = verticalAccuracy
        self.speedAccuracy = speedAccuracy
        self.courseAccuracy = courseAccuracy
    }

    /// A fix with a usable horizontal position.
    public var hasPosition: Bool { mode != .none && latitude != nil && longitude != nil }

    /// A rule across fields the decoder checks after reading them (schemas/obs.fix.schema.json's
    /// `x-locus-swift.problem`): nil when the fix holds together.
    func wireProblem() -> String? {
        mode != .none && (latitude == nil || longitude == nil) ? "a 2d/3d fix needs lat and lon" : nil
    }
}
