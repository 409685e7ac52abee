import LocusCore

/// gpsd JSON (`gpspipe -w` output, gpsd_json(5)): TPV reports become fixes, SKY reports sky
/// views, exactly as the gpsd source publishes them live: the reports are parsed by
/// `GpsdDataReport` and mapped by `GpsdObservationMapper` / `GpsdMapping`, which the source uses
/// too (see those for the conversions: 95 % error figures to 1-sigma, GST refinement, DOPs of the
/// latest SKY, constellations).
///
/// Counted and skipped: lines that are no gpsd report (`bad_lines`), TPVs without `time`, SKYs
/// before any time is known, classes without location data (`other_reports`).
public struct GpsdJSONReader {
    public let options: DecodeOptions
    public private(set) var statistics = DecodeStatistics()
    public private(set) var warnings: [String] = []

    public init(options: DecodeOptions = .init()) { self.options = options }

    public mutating func read(_ input: ByteInput, emit: (RecordedObservation) throws -> Void) throws {
        // A recording may hold several devices; like a source without `device`, it uses them all.
        var mapper = GpsdObservationMapper(source: options.source)
        var stats = statistics
        let includeSky = options.includeSky
        let overlong = try input.forEachLine { line in
            let report: GpsdDataReport
            do {
                report = try GpsdDataReport.parse(line)
            } catch {
                stats.count("bad_lines")
                return
            }
            switch mapper.map(report) {
            case .fix(let fix, let t):
                stats.fixes += 1
                try emit(.fix(fix, at: t))
            case .sky(let sky, let t):
                guard includeSky else { return }
                stats.skyViews += 1
                try emit(.sky(sky, at: t))
            case .tpvWithoutTime: stats.count("tpv_without_time")
            case .skyWithoutTime: if includeSky { stats.count("sky_without_time") }
            case .ignored: stats.count("other_reports")
            case .kept, .otherDevice: break
            }
        }
        if overlong > 0 { stats.count("overlong_lines", overlong) }
        stats.bytes = input.bytesRead
        statistics = stats
        if stats.fixes == 0 && stats.skyViews == 0 { warnings.append("no TPV or SKY report with a time found") }
    }
}
