import LocusCore

/// Conversion of gpsd reports to Locus events: the one mapping behind the gpsd source and
/// `GpsdJSONReader` (`locus decode`, replay); `GpsdObservationMapper` feeds it in report order.
///
/// Error estimates: gpsd documents its `eph`/`epx`/`epy`/`epv`/`eps`/`epd` as 95 % confidence
/// figures ("certainty unknown" in newer manuals). For NMEA receivers gpsd computes them from the
/// DOPs and a fixed UERE (`eph` = HDOP × 19 m in 3.22), which is meant as 95 %. Locus's accuracies
/// are 1-sigma, so:
///
/// - horizontal: `eph` is a 95 % radius of a circular 2-D normal distribution, which is
///   `sqrt(-2 ln 0.05)` = 2.4477 times the per-axis sigma: `h = eph / 2.4477` (the 39.4 %
///   "1-sigma circle"). Without `eph`, `epx`/`epy` are 95 % one-axis figures (1.96 sigma):
///   `h = sqrt((epx² + epy²) / 2) / 1.96`, which gives the same sigma for a circular error.
/// - vertical: `v = epv / 1.96`; speed: `eps / 1.96`; course: `epd / 1.96`.
/// - GST: its `lat`/`lon`/`alt` are already 1-sigma (metres). When a GST for the same epoch
///   (same `time`, same device) has arrived, it replaces the DOP-based guesses:
///   `h = sqrt((lat² + lon²) / 2)`, `v = alt`.
public enum GpsdMapping {
    /// 95 % radius of a circular 2-D normal distribution in units of its per-axis sigma: sqrt(-2 ln 0.05).
    public static let horizontal95PerSigma = 2.447746830680816
    /// 95 % two-sided bound of a 1-D normal distribution in units of its sigma.
    public static let oneDimensional95PerSigma = 1.959963984540054

    /// Maps a TPV to a fix. `gst` refines the accuracies if it belongs to the same epoch;
    /// `sky` (the most recent SKY of the device) supplies the DOPs and the used-satellite count.
    public static func fix(from tpv: GpsdTPV, source: String, gst: GpsdGST? = nil, sky: GpsdSky? = nil) -> Fix {
        let mode: Fix.Mode
        switch tpv.mode {
        case 2: mode = .twoD
        case 3: mode = .threeD
        default: mode = .none
        }
        var fix = Fix(source: source, mode: mode)
        // gpsd keeps the last position in TPVs of mode 0/1 in some versions: a "none" fix
        // carries no position, so nothing stale is mistaken for a fix.
        guard mode != .none, let lat = tpv.lat, let lon = tpv.lon else {
            fix.mode = .none
            return fix
        }
        fix.latitude = lat
        fix.longitude = lon
        fix.altitudeMSL = tpv.altMSL ?? tpv.alt
        fix.altitudeHAE = tpv.altHAE
        fix.speed = tpv.speed
        fix.course = tpv.track
        fix.quality = quality(status: tpv.status)
        if let sky {
            fix.hdop = sky.hdop
            fix.vdop = sky.vdop
            fix.pdop = sky.pdop
            fix.satellitesUsed = sky.usedCount ?? sky.satellites.map { $0.filter(\.used).count }
        }
        let acc = accuracies(tpv: tpv, gst: gst)
        fix.horizontalAccuracy = acc.horizontal
        fix.verticalAccuracy = acc.vertical
        fix.speedAccuracy = tpv.eps.map { $0 / oneDimensional95PerSigma }
        fix.courseAccuracy = tpv.epd.map { $0 / oneDimensional95PerSigma }
        return fix
    }

    /// 1-sigma horizontal and vertical errors in metres (see the type's documentation).
    public static func accuracies(tpv: GpsdTPV, gst: GpsdGST?) -> (horizontal: Double?, vertical: Double?) {
        var h: Double?
        var v: Double? = tpv.epv.map { $0 / oneDimensional95PerSigma }
        if let eph = tpv.eph {
            h = eph / horizontal95PerSigma
        } else if let epx = tpv.epx, let epy = tpv.epy {
            h = ((epx * epx + epy * epy) / 2).squareRoot() / oneDimensional95PerSigma
        }
        if let gst, let gt = gst.time, gt == tpv.time, gst.device == tpv.device {
            if let la = gst.lat, let lo = gst.lon, la > 0 || lo > 0 {
                h = ((la * la + lo * lo) / 2).squareRoot()
            }
            if let a = gst.alt, a > 0 { v = a }
        }
        return (h, v)
    }

    /// gpsd's TPV `status` to Locus's quality (for a 2D/3D fix).
    public static func quality(status: Int?) -> Fix.Quality {
        switch status ?? 1 {
        case 2: return .dgps
        case 3: return .rtkFixed
        case 4: return .rtkFloat
        case 5, 6: return .deadReckoning
        case 7: return .manual
        case 8: return .simulated
        default: return .gps
        }
    }

    /// A SKY report as a sky view (no satellites if the report lists none).
    public static func skyView(from sky: GpsdSky, source: String) -> SkyView {
        SkyView(source: source, satellites: (sky.satellites ?? []).map { s in
            SkyView.Satellite(
                constellation: constellation(gnssid: s.gnssid, prn: s.prn),
                prn: s.prn,
                elevation: s.elevation.flatMap { (-90...90).contains($0) ? $0 : nil },
                azimuth: s.azimuth.flatMap { (0...360).contains($0) ? $0 : nil },
                // gpsd writes 0 for "no signal" (an empty NMEA field): no measurement.
                snr: s.snr.flatMap { $0 > 0 ? $0 : nil },
                used: s.used)
        })
    }

    /// Constellation name from gpsd's `gnssid`, or, for gpsd versions without it, from the
    /// NMEA-style PRN ranges gpsd uses.
    public static func constellation(gnssid: Int?, prn: Int) -> String {
        GNSSConstellation.name(gnssID: gnssid, prn: prn)
    }
}
