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

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.field("source", source)
        w.field("mode", mode.rawValue)
        // 1e-9 degree is 0.1 mm: finer than any receiver reports.
        w.field("lat", latitude, fractionDigits: 9)
        w.field("lon", longitude, fractionDigits: 9)
        w.field("alt_msl", altitudeMSL, fractionDigits: 3)
        w.field("alt_hae", altitudeHAE, fractionDigits: 3)
        w.field("speed", speed, fractionDigits: 3)
        w.field("course", course.map { Bearing.wireValue($0, fractionDigits: 2) }, fractionDigits: 2)
        w.field("heading", heading.map { Bearing.wireValue($0, fractionDigits: 2) }, fractionDigits: 2)
        w.field("quality", quality?.rawValue)
        w.field("satellites_used", satellitesUsed)
        w.field("hdop", hdop, fractionDigits: 2)
        w.field("vdop", vdop, fractionDigits: 2)
        w.field("pdop", pdop, fractionDigits: 2)
        w.field("h_accuracy", horizontalAccuracy, fractionDigits: 3)
        w.field("v_accuracy", verticalAccuracy, fractionDigits: 3)
        w.field("speed_accuracy", speedAccuracy, fractionDigits: 3)
        w.field("course_accuracy", courseAccuracy, fractionDigits: 2)
        w.endObject()
    }

    public init(from r: inout JSONReader) throws {
        var source: String?
        var mode: Mode?
        self.init(source: "", mode: .none)
        // Decoded a million times a second: a loop over the object's members rather than
        // `readObject`'s closure (see `JSONReader.enterObject`). `==` is inlined, so this chain
        // is mostly integer compares of the key's length; it lists the keys in the order
        // `write(to:)` puts them, so those match early.
        if try r.enterObject() {
            repeat {
                let k = try r.readMemberKey()
                if k == "source" { source = try r.readString() }
                else if k == "mode" {
                    let t = try r.readStringToken()
                    guard let m = Mode(wire: t) else { throw r.error("unknown fix mode '\(t.string)'") }
                    mode = m
                }
                else if k == "lat" { latitude = try r.readOptionalDouble() }
                else if k == "lon" { longitude = try r.readOptionalDouble() }
                else if k == "alt_msl" { altitudeMSL = try r.readOptionalDouble() }
                else if k == "alt_hae" { altitudeHAE = try r.readOptionalDouble() }
                else if k == "speed" { speed = try r.readOptionalDouble() }
                else if k == "course" { course = try r.readOptionalDouble() }
                else if k == "heading" { heading = try r.readOptionalDouble() }
                else if k == "quality" {
                    if !r.readNull() {
                        let t = try r.readStringToken()
                        guard let q = Quality(wire: t) else { throw r.error("unknown fix quality '\(t.string)'") }
                        quality = q
                    }
                }
                else if k == "satellites_used" { satellitesUsed = try r.readOptionalInt() }
                else if k == "hdop" { hdop = try r.readOptionalDouble() }
                else if k == "vdop" { vdop = try r.readOptionalDouble() }
                else if k == "pdop" { pdop = try r.readOptionalDouble() }
                else if k == "h_accuracy" { horizontalAccuracy = try r.readOptionalDouble() }
                else if k == "v_accuracy" { verticalAccuracy = try r.readOptionalDouble() }
                else if k == "speed_accuracy" { speedAccuracy = try r.readOptionalDouble() }
                else if k == "course_accuracy" { courseAccuracy = try r.readOptionalDouble() }
                else { try r.skipValue() }
            } while try r.nextMember()
        }
        guard let source else { throw r.error("fix without source") }
        guard let mode else { throw r.error("fix without mode") }
        self.source = source
        self.mode = mode
        if mode != .none && (latitude == nil || longitude == nil) { throw r.error("a 2d/3d fix needs lat and lon") }
        // No service may see a position off the globe (the values are not named: coordinates).
        if let latitude, !(-90...90).contains(latitude) { throw r.error("lat out of range -90...90") }
        if let longitude, !(-180...180).contains(longitude) { throw r.error("lon out of range -180...180") }
    }
}

// `init(rawValue:)` for a string token read from the wire, matched as bytes: no String is made
// per message. They must list exactly the raw values above (the codec tests check every case).
extension Fix.Mode {
    init?(wire t: JSONKey) {
        if t == "3d" { self = .threeD }
        else if t == "2d" { self = .twoD }
        else if t == "none" { self = .none }
        else { return nil }
    }
}

extension Fix.Quality {
    init?(wire t: JSONKey) {
        if t == "gps" { self = .gps }
        else if t == "dgps" { self = .dgps }
        else if t == "pps" { self = .pps }
        else if t == "rtk_fixed" { self = .rtkFixed }
        else if t == "rtk_float" { self = .rtkFloat }
        else if t == "dead_reckoning" { self = .deadReckoning }
        else if t == "estimated" { self = .estimated }
        else if t == "manual" { self = .manual }
        else if t == "simulated" { self = .simulated }
        else { return nil }
    }
}
