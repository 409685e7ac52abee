import LocusCore

/// A TPV (time-position-velocity) report, the fields Locus uses (gpsd_json(5)).
public struct GpsdTPV: Sendable, Equatable {
    public var device: String?
    /// 0 = no mode value seen yet, 1 = no fix, 2 = 2D, 3 = 3D.
    public var mode: Int = 0
    /// gpsd's fix status: absent/0 unknown, 1 normal, 2 DGPS, 3 RTK fixed, 4 RTK float, 5 DR, 6 GNSS+DR, 7 time only (surveyed), 8 simulated.
    public var status: Int?
    public var time: EventTime?
    public var lat: Double?
    public var lon: Double?
    /// Deprecated MSL altitude (older gpsd); `altMSL` is preferred.
    public var alt: Double?
    public var altHAE: Double?
    public var altMSL: Double?
    public var speed: Double?
    public var track: Double?
    public var climb: Double?
    public var eph: Double?
    public var epx: Double?
    public var epy: Double?
    public var epv: Double?
    public var eps: Double?
    public var epd: Double?
    public var ept: Double?

    public init() {}
}

/// One satellite of a SKY report.
public struct GpsdSatellite: Sendable, Equatable {
    public var prn: Int
    /// u-blox style GNSS id: 0 GPS, 1 SBAS, 2 Galileo, 3 BeiDou, 4 IMES, 5 QZSS, 6 GLONASS, 7 NavIC.
    public var gnssid: Int?
    public var svid: Int?
    public var elevation: Double?
    public var azimuth: Double?
    public var snr: Double?
    public var used: Bool

    public init(prn: Int, gnssid: Int? = nil, svid: Int? = nil, elevation: Double? = nil, azimuth: Double? = nil,
                snr: Double? = nil, used: Bool = false) {
        self.prn = prn
        self.gnssid = gnssid
        self.svid = svid
        self.elevation = elevation
        self.azimuth = azimuth
        self.snr = snr
        self.used = used
    }
}

/// A SKY report: satellites in view and the DOPs.
public struct GpsdSky: Sendable, Equatable {
    public var device: String?
    public var time: EventTime?
    public var satellites: [GpsdSatellite] = []
    public var hdop: Double?
    public var vdop: Double?
    public var pdop: Double?
    public var usedCount: Int?

    public init() {}
}

/// A GST report: pseudorange noise statistics. `lat`, `lon`, `alt` are 1-sigma errors in metres.
public struct GpsdGST: Sendable, Equatable {
    public var device: String?
    public var time: EventTime?
    public var lat: Double?
    public var lon: Double?
    public var alt: Double?

    public init() {}
}

/// One line of gpsd output, decoded as far as Locus needs it.
public enum GpsdReport: Sendable, Equatable {
    case version(release: String?, protoMajor: Int?, protoMinor: Int?)
    /// The device paths gpsd knows.
    case devices([String])
    /// A device was activated (`activated` present and not 0) or removed.
    case device(path: String?, activated: Bool)
    case watch
    case tpv(GpsdTPV)
    case sky(GpsdSky)
    case gst(GpsdGST)
    case error(String)
    /// A class Locus does not use (`PPS`, `TOFF`, `ATT`, `AIS`, `OSC`, …).
    case other(String)
}

public struct GpsdParseError: Error, Sendable, CustomStringConvertible {
    public var description: String
}

extension GpsdReport {
    /// Decodes one JSON line from gpsd. Throws for anything that is not a JSON object with a `class`.
    public static func parse(_ line: [UInt8]) throws -> GpsdReport {
        try line.withUnsafeBufferPointer { try parse($0) }
    }

    public static func parse(_ line: String) throws -> GpsdReport { try parse(Array(line.utf8)) }

    /// Decodes one JSON line (without its newline) in one pass: gpsd does not promise that
    /// `class` comes first, so every field is read and the class decides what they mean.
    public static func parse(_ buf: UnsafeBufferPointer<UInt8>) throws -> GpsdReport {
        var cls: String?
        var device: String?
        var time: EventTime?
        var tpv = GpsdTPV()
        var sky = GpsdSky()
        var release: String?, protoMajor: Int?, protoMinor: Int?
        var devices: [String] = []
        var path: String?
        var activated = false
        var message: String?
        // lat/lon/alt mean a position in TPV and a 1-sigma error in GST: read once, used per class.
        try JSONReader.read(buf) { r in
            guard try r.nextKind() == .object else { throw GpsdParseError(description: "not a JSON object") }
            try r.readObject { r, k in
                if k == "class" { cls = try r.readString() }
                else if k == "device" { device = try r.readOptionalString() }
                else if k == "time" { time = try readGpsdTime(&r) }
                else if k == "mode" { tpv.mode = try r.readOptionalInt() ?? 0 }
                else if k == "status" { tpv.status = try r.readOptionalInt() }
                else if k == "lat" { tpv.lat = try readNumber(&r) }
                else if k == "lon" { tpv.lon = try readNumber(&r) }
                else if k == "alt" { tpv.alt = try readNumber(&r) }
                else if k == "altHAE" { tpv.altHAE = try readNumber(&r) }
                else if k == "altMSL" { tpv.altMSL = try readNumber(&r) }
                else if k == "speed" { tpv.speed = try readNumber(&r) }
                else if k == "track" { tpv.track = try readNumber(&r) }
                else if k == "climb" { tpv.climb = try readNumber(&r) }
                else if k == "eph" { tpv.eph = try readNumber(&r) }
                else if k == "epx" { tpv.epx = try readNumber(&r) }
                else if k == "epy" { tpv.epy = try readNumber(&r) }
                else if k == "epv" { tpv.epv = try readNumber(&r) }
                else if k == "eps" { tpv.eps = try readNumber(&r) }
                else if k == "epd" { tpv.epd = try readNumber(&r) }
                else if k == "ept" { tpv.ept = try readNumber(&r) }
                else if k == "hdop" { sky.hdop = try readNumber(&r) }
                else if k == "vdop" { sky.vdop = try readNumber(&r) }
                else if k == "pdop" { sky.pdop = try readNumber(&r) }
                else if k == "uSat" { sky.usedCount = try r.readOptionalInt() }
                else if k == "satellites" {
                    if !r.readNull() {
                        try r.readArray { r in sky.satellites.append(try readSatellite(&r)) }
                    }
                }
                else if k == "release" { release = try r.readOptionalString() }
                else if k == "proto_major" { protoMajor = try r.readOptionalInt() }
                else if k == "proto_minor" { protoMinor = try r.readOptionalInt() }
                else if k == "devices" {
                    if !r.readNull() {
                        try r.readArray { r in
                            var p: String?
                            try r.readObject { r, k in
                                if k == "path" { p = try r.readOptionalString() } else { try r.skipValue() }
                            }
                            if let p { devices.append(p) }
                        }
                    }
                }
                else if k == "path" { path = try r.readOptionalString() }
                else if k == "activated" {
                    // A timestamp (string; a number in old gpsd) when active, 0 when the device is gone.
                    switch try r.nextKind() {
                    case .string: activated = !(try r.readString()).isEmpty
                    case .number: activated = try r.readDouble() != 0
                    default: try r.skipValue()
                    }
                }
                else if k == "message" { message = try r.readOptionalString() }
                else { try r.skipValue() }
            }
        }
        guard let cls else { throw GpsdParseError(description: "object without \"class\"") }
        switch cls {
        case "TPV":
            tpv.device = device
            tpv.time = time
            return .tpv(tpv)
        case "SKY":
            sky.device = device
            sky.time = time
            return .sky(sky)
        case "GST":
            var g = GpsdGST()
            g.device = device
            g.time = time
            g.lat = tpv.lat
            g.lon = tpv.lon
            g.alt = tpv.alt
            return .gst(g)
        case "VERSION": return .version(release: release, protoMajor: protoMajor, protoMinor: protoMinor)
        case "DEVICES": return .devices(devices)
        case "DEVICE": return .device(path: path, activated: activated)
        case "WATCH": return .watch
        case "ERROR": return .error(message ?? "")
        default: return .other(cls)
        }
    }

    /// A number, or nil for `null` (gpsd prints no NaN, but be lenient about null).
    static func readNumber(_ r: inout JSONReader) throws -> Double? {
        guard let v = try r.readOptionalDouble(), v.isFinite else { return nil }
        return v
    }

    /// ISO 8601 string (gpsd ≥ 3.10), or seconds since the epoch (older protocol versions).
    static func readGpsdTime(_ r: inout JSONReader) throws -> EventTime? {
        switch try r.nextKind() {
        case .string:
            let s = try r.readString()
            guard let t = EventTime(iso8601: s) else { throw GpsdParseError(description: "bad time '\(s)'") }
            return t
        case .number: return EventTime(seconds: try r.readDouble())
        case .null: _ = r.readNull(); return nil
        default: throw GpsdParseError(description: "time is neither a string nor a number")
        }
    }

    static func readSatellite(_ r: inout JSONReader) throws -> GpsdSatellite {
        var prn: Int?, gnssid: Int?, svid: Int?, el: Double?, az: Double?, ss: Double?, used = false
        try r.readObject { r, k in
            if k == "PRN" { prn = try r.readOptionalInt() }
            else if k == "gnssid" { gnssid = try r.readOptionalInt() }
            else if k == "svid" { svid = try r.readOptionalInt() }
            else if k == "el" { el = try readNumber(&r) }
            else if k == "az" { az = try readNumber(&r) }
            else if k == "ss" { ss = try readNumber(&r) }
            else if k == "used" { used = try r.readOptionalBool() ?? false }
            else { try r.skipValue() }
        }
        guard let prn else { throw GpsdParseError(description: "satellite without PRN") }
        return GpsdSatellite(prn: prn, gnssid: gnssid, svid: svid, elevation: el, azimuth: az, snr: ss, used: used)
    }
}
