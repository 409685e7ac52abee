import LocusCore

/// A fix as gpsd's TPV report carries it (gpsd_json(5)): units as Locus's (degrees, metres,
/// m/s), field names and meanings as gpsd's.
public struct GpsdTPVReport: Sendable, Equatable {
    public var device: String
    /// 1: no fix, 2: 2D, 3: 3D (gpsd's 0, "not seen", is never sent for a fix).
    public var mode: Int
    /// gpsd's fix status, written only when it is not 1 (an ordinary GPS fix).
    public var status: Int?
    public var time: EventTime
    public var latitude: Double?
    public var longitude: Double?
    public var altitudeHAE: Double?
    public var altitudeMSL: Double?
    public var track: Double?
    public var speed: Double?
    public var climb: Double?
    public var eph: Double?
    public var epv: Double?
    public var eps: Double?
    public var epd: Double?

    /// gpsd's error estimates are 95 % figures; Locus's accuracies are 1-sigma: ×2 (two
    /// standard deviations, about 95 % for one axis).
    public static let sigmaTo95 = 2.0

    /// `fix` at `time`, reported as device `device`. `previous` (the device's last TPV) gives the
    /// climb when the fix has altitude and the receiver said none, as gpsd derives it.
    public init(fix: Fix, time: EventTime, device: String, previous: GpsdTPVReport? = nil) {
        self.device = device
        self.time = time
        switch fix.mode {
        case .none: mode = 1
        case .twoD: mode = 2
        case .threeD: mode = 3
        }
        status = mode >= 2 ? fix.quality.flatMap(Self.status(of:)) : nil
        guard mode >= 2 else { return }
        latitude = fix.latitude
        longitude = fix.longitude
        track = fix.course
        speed = fix.speed
        eph = fix.horizontalAccuracy.map { $0 * Self.sigmaTo95 }
        eps = fix.speedAccuracy.map { $0 * Self.sigmaTo95 }
        epd = fix.courseAccuracy.map { $0 * Self.sigmaTo95 }
        guard mode == 3 else { return }
        altitudeHAE = fix.altitudeHAE
        altitudeMSL = fix.altitudeMSL
        epv = fix.verticalAccuracy.map { $0 * Self.sigmaTo95 }
        if let previous, previous.mode == 3, time > previous.time {
            let dt = time.seconds(since: previous.time)
            if let a = altitudeHAE, let b = previous.altitudeHAE {
                climb = (a - b) / dt
            } else if let a = altitudeMSL, let b = previous.altitudeMSL {
                climb = (a - b) / dt
            }
        }
    }

    /// gpsd's TPV `status` for a quality (the inverse of `GpsdMapping.quality(status:)`); nil
    /// for an ordinary GPS fix, which gpsd reports without one.
    public static func status(of quality: Fix.Quality) -> Int? {
        switch quality {
        case .gps, .manual: nil
        case .dgps, .pps: 2
        case .rtkFixed: 3
        case .rtkFloat: 4
        case .deadReckoning, .estimated: 5
        case .simulated: 8
        }
    }

    /// The geoid separation, when both altitudes are known.
    public var geoidSeparation: Double? {
        guard let h = altitudeHAE, let m = altitudeMSL else { return nil }
        return h - m
    }
}

/// A sky view as gpsd's SKY report carries it.
public struct GpsdSkyReport: Sendable, Equatable {
    public var device: String
    public var time: EventTime
    public var satellites: [SkyView.Satellite]
    /// Dilutions of precision, from the device's latest fix (gpsd reports them in SKY).
    public var hdop: Double?
    public var vdop: Double?
    public var pdop: Double?

    public init(sky: SkyView, time: EventTime, device: String, dops fix: Fix?) {
        self.device = device
        self.time = time
        satellites = sky.satellites
        hdop = fix?.hdop
        vdop = fix?.vdop
        pdop = fix?.pdop
    }

    /// gpsd's (u-blox) GNSS id for a constellation name.
    public static func gnssID(_ constellation: String) -> Int? {
        switch constellation {
        case "gps": 0
        case "sbas": 1
        case "galileo": 2
        case "beidou": 3
        case "qzss": 5
        case "glonass": 6
        case "navic": 7
        default: nil
        }
    }

    /// The satellite's number within its constellation, from the NMEA-style PRN receivers
    /// send (GLONASS 65–96 are slots 1–32, SBAS 33–64 are PRNs 120–151, as gpsd maps them).
    public static func svid(_ satellite: SkyView.Satellite) -> Int {
        switch (satellite.constellation, satellite.prn) {
        case ("glonass", 65...96): satellite.prn - 64
        case ("sbas", 33...64): satellite.prn + 87
        default: satellite.prn
        }
    }
}
