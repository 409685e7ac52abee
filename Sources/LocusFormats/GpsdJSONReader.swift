import LocusCore

/// gpsd JSON (`gpspipe -w` output, gpsd_json(5)): TPV reports become fixes, SKY reports sky views.
///
/// This is a small mapping of its own (LocusFormats cannot import the gpsd plugin); the
/// conversions are the same facts as `Plugins/Gpsd/Sources/GpsdMapping.swift`:
///
/// - gpsd's `eph`/`epx`/`epy`/`epv`/`eps`/`epd` are 95 % figures; Locus's accuracies are 1-sigma:
///   horizontal `eph / 2.4477` (sqrt(-2 ln 0.05), the 95 % radius of a circular 2-D normal in
///   per-axis sigmas), or `sqrt((epx² + epy²) / 2) / 1.96` without `eph`; vertical `epv / 1.96`,
///   speed `eps / 1.96`, course `epd / 1.96`.
/// - `altMSL` (or the older `alt`) is the MSL altitude, `altHAE` the ellipsoidal one.
/// - `status` gives the quality (2 DGPS, 3 RTK fixed, 4 RTK float, 5/6 dead reckoning, 7 manual,
///   8 simulated, else GPS). Mode 0/1 TPVs are fixes of mode `none` without a position.
/// - DOPs and the used-satellite count come from the latest SKY report.
/// - SKY satellites: constellation from `gnssid` (or gpsd's PRN ranges), `ss` 0 means no signal.
///
/// GST refinement of the accuracies (which the plugin does) is not applied here.
/// TPVs without `time` are skipped (counted); a SKY without `time` takes the latest TPV's time.
public struct GpsdJSONReader {
    public let options: DecodeOptions
    public private(set) var statistics = DecodeStatistics()
    public private(set) var warnings: [String] = []

    static let horizontal95PerSigma = 2.447746830680816
    static let oneDimensional95PerSigma = 1.959963984540054

    public init(options: DecodeOptions = .init()) { self.options = options }

    struct Report {
        var cls: JSONClass = .other
        var time: EventTime?
        var mode = 0
        var status: Int?
        var lat: Double?, lon: Double?, alt: Double?, altHAE: Double?, altMSL: Double?
        var speed: Double?, track: Double?
        var eph: Double?, epx: Double?, epy: Double?, epv: Double?, eps: Double?, epd: Double?
        var hdop: Double?, vdop: Double?, pdop: Double?, uSat: Int?
        var satellites: [SkyView.Satellite] = []
        var hasSatellites = false
    }

    enum JSONClass { case tpv, sky, other }

    public mutating func read(_ input: ByteInput, emit: (RecordedObservation) throws -> Void) throws {
        let source = options.source
        var lastSky: (hdop: Double?, vdop: Double?, pdop: Double?, used: Int?)?
        var lastTime: EventTime?
        var stats = statistics
        let includeSky = options.includeSky
        let overlong = try input.forEachLine { line in
            let report: Report
            do {
                report = try Self.parse(line)
            } catch {
                stats.count("bad_lines")
                return
            }
            switch report.cls {
            case .tpv:
                guard let t = report.time else { stats.count("tpv_without_time"); return }
                lastTime = t
                var fix = Self.fix(from: report, source: source)
                if fix.mode != .none, let sky = lastSky {
                    fix.hdop = sky.hdop
                    fix.vdop = sky.vdop
                    fix.pdop = sky.pdop
                    fix.satellitesUsed = sky.used
                }
                stats.fixes += 1
                try emit(.fix(fix, at: t))
            case .sky:
                let used = report.uSat ?? (report.hasSatellites ? report.satellites.filter(\.used).count : nil)
                lastSky = (report.hdop, report.vdop, report.pdop, used)
                guard includeSky, report.hasSatellites else { return }
                guard let t = report.time ?? lastTime else { stats.count("sky_without_time"); return }
                stats.skyViews += 1
                try emit(.sky(SkyView(source: source, satellites: report.satellites), at: t))
            case .other:
                stats.count("other_reports")
            }
        }
        if overlong > 0 { stats.count("overlong_lines", overlong) }
        stats.bytes = input.bytesRead
        statistics = stats
        if stats.fixes == 0 && stats.skyViews == 0 { warnings.append("no TPV or SKY report with a time found") }
    }

    /// A TPV as a fix (without the SKY-derived fields).
    static func fix(from r: Report, source: String) -> Fix {
        let mode: Fix.Mode = r.mode == 3 ? .threeD : r.mode == 2 ? .twoD : .none
        guard mode != .none, let lat = r.lat, let lon = r.lon else { return Fix(source: source, mode: .none) }
        var f = Fix(source: source, mode: mode, latitude: lat, longitude: lon)
        f.altitudeMSL = r.altMSL ?? r.alt
        f.altitudeHAE = r.altHAE
        f.speed = r.speed
        f.course = r.track
        switch r.status ?? 1 {
        case 2: f.quality = .dgps
        case 3: f.quality = .rtkFixed
        case 4: f.quality = .rtkFloat
        case 5, 6: f.quality = .deadReckoning
        case 7: f.quality = .manual
        case 8: f.quality = .simulated
        default: f.quality = .gps
        }
        if let eph = r.eph {
            f.horizontalAccuracy = eph / horizontal95PerSigma
        } else if let x = r.epx, let y = r.epy {
            f.horizontalAccuracy = ((x * x + y * y) / 2).squareRoot() / oneDimensional95PerSigma
        }
        f.verticalAccuracy = r.epv.map { $0 / oneDimensional95PerSigma }
        f.speedAccuracy = r.eps.map { $0 / oneDimensional95PerSigma }
        f.courseAccuracy = r.epd.map { $0 / oneDimensional95PerSigma }
        return f
    }

    static func parse(_ line: UnsafeBufferPointer<UInt8>) throws -> Report {
        var rep = Report()
        var cls: String?
        try JSONReader.read(line) { r in
            try r.readObject { r, k in
                if k == "class" { cls = try r.readString() }
                else if k == "time" { rep.time = try readTime(&r) }
                else if k == "mode" { rep.mode = try r.readOptionalInt() ?? 0 }
                else if k == "status" { rep.status = try r.readOptionalInt() }
                else if k == "lat" { rep.lat = try number(&r) }
                else if k == "lon" { rep.lon = try number(&r) }
                else if k == "alt" { rep.alt = try number(&r) }
                else if k == "altHAE" { rep.altHAE = try number(&r) }
                else if k == "altMSL" { rep.altMSL = try number(&r) }
                else if k == "speed" { rep.speed = try number(&r) }
                else if k == "track" { rep.track = try number(&r) }
                else if k == "eph" { rep.eph = try number(&r) }
                else if k == "epx" { rep.epx = try number(&r) }
                else if k == "epy" { rep.epy = try number(&r) }
                else if k == "epv" { rep.epv = try number(&r) }
                else if k == "eps" { rep.eps = try number(&r) }
                else if k == "epd" { rep.epd = try number(&r) }
                else if k == "hdop" { rep.hdop = try number(&r) }
                else if k == "vdop" { rep.vdop = try number(&r) }
                else if k == "pdop" { rep.pdop = try number(&r) }
                else if k == "uSat" { rep.uSat = try r.readOptionalInt() }
                else if k == "satellites" {
                    if !r.readNull() {
                        rep.hasSatellites = true
                        try r.readArray { r in
                            if let s = try satellite(&r) { rep.satellites.append(s) }
                        }
                    }
                }
                else { try r.skipValue() }
            }
        }
        switch cls {
        case "TPV": rep.cls = .tpv
        case "SKY": rep.cls = .sky
        case nil: throw FormatInputError.malformed(format: .gpsd, reason: "object without \"class\"")
        default: rep.cls = .other
        }
        return rep
    }

    static func number(_ r: inout JSONReader) throws -> Double? {
        guard let v = try r.readOptionalDouble(), v.isFinite else { return nil }
        return v
    }

    /// ISO 8601 (gpsd ≥ 3.10) or seconds since the epoch (older protocol).
    static func readTime(_ r: inout JSONReader) throws -> EventTime? {
        switch try r.nextKind() {
        case .string:
            guard let t = EventTime(iso8601: try r.readString()) else { throw r.error("bad time") }
            return t
        case .number: return EventTime(seconds: try r.readDouble())
        default: try r.skipValue(); return nil
        }
    }

    static func satellite(_ r: inout JSONReader) throws -> SkyView.Satellite? {
        var prn: Int?, gnssid: Int?, el: Double?, az: Double?, ss: Double?, used = false
        try r.readObject { r, k in
            if k == "PRN" { prn = try r.readOptionalInt() }
            else if k == "gnssid" { gnssid = try r.readOptionalInt() }
            else if k == "el" { el = try number(&r) }
            else if k == "az" { az = try number(&r) }
            else if k == "ss" { ss = try number(&r) }
            else if k == "used" { used = try r.readOptionalBool() ?? false }
            else { try r.skipValue() }
        }
        guard let prn else { return nil }
        return SkyView.Satellite(
            constellation: constellation(gnssid: gnssid, prn: prn), prn: prn,
            elevation: el.flatMap { (-90...90).contains($0) ? $0 : nil },
            azimuth: az.flatMap { (0...360).contains($0) ? $0 : nil },
            snr: ss.flatMap { $0 > 0 ? $0 : nil },
            used: used)
    }

    /// From u-blox style `gnssid`, or gpsd's NMEA-style PRN ranges.
    static func constellation(gnssid: Int?, prn: Int) -> String {
        GNSSConstellation.name(gnssID: gnssid, prn: prn)
    }
}
