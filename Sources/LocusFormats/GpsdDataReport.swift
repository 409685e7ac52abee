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
    /// nil when the report has no `satellites` member: gpsd writes it only when it knows
    /// satellites, and sends SKYs with just the DOPs in between (e.g. after a GSA). That is no
    /// view of the sky, unlike an empty list.
    public var satellites: [GpsdSatellite]?
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

/// One line of gpsd JSON as far as it carries location data: the part of gpsd's protocol that
/// the gpsd source (live) and `GpsdJSONReader` (`gpspipe -w` logs) both read.
public enum GpsdDataReport: Sendable, Equatable {
    case tpv(GpsdTPV)
    case sky(GpsdSky)
    case gst(GpsdGST)
    /// Any other class (`VERSION`, `DEVICES`, `PPS`, `TOFF`, `ATT`, `AIS`, …), by name.
    case other(String)
}

/// A line that is not a gpsd report: not a JSON object, no `class`, a bad `time`, a satellite
/// without `PRN`.
public struct GpsdParseError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) { self.description = description }
}
