import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import LocusCore

/// GPX 1.0 / 1.1: one fix per `<trkpt>` or `<rtept>` that has a `<time>`, in file order.
///
/// - `lat`/`lon` attributes; `<ele>` is the altitude above mean sea level (GPX's definition);
/// - `<hdop>`, `<vdop>`, `<pdop>`, `<sat>` (satellites used), `<fix>` (`none`, `2d`, `3d`,
///   `dgps`, `pps`); without `<fix>` the mode is 3d with an `<ele>`, 2d without;
/// - speed (m/s) and course (degrees): GPX 1.0's `<speed>`/`<course>` elements, or in 1.1 any
///   `speed`/`course` element (whatever its namespace prefix) inside the point's
///   `<extensions>`, which covers Garmin's TrackPointExtension v2 (`gpxtpx:speed`,
///   `gpxtpx:course`) and the plain forms other tools write;
/// - points without a time (or with an unreadable one, or bad coordinates) are skipped and
///   counted; waypoints (`<wpt>`) are not observations and are passed over.
///
/// Parsed with Foundation's streaming `XMLParser` over the input stream: memory is bounded.
public struct GPXReader {
    public let options: DecodeOptions
    public private(set) var statistics = DecodeStatistics()
    public private(set) var warnings: [String] = []

    public init(options: DecodeOptions = .init()) { self.options = options }

    public mutating func read(_ input: ByteInput, emit: (RecordedObservation) throws -> Void) throws {
        let stream = ByteInputStream(input)
        let parser = XMLParser(stream: stream)
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        let delegate = GPXDelegate(source: options.source)
        parser.delegate = delegate
        try withoutActuallyEscaping(emit) { emit in
            delegate.emit = emit
            let ok = parser.parse()
            delegate.emit = nil
            if let e = delegate.thrown { throw e }
            if let e = stream.failure { throw e }
            if !ok {
                let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "XML error"
                throw FormatInputError.malformed(format: .gpx, reason: "line \(parser.lineNumber): \(reason)")
            }
        }
        var s = DecodeStatistics()
        s.bytes = input.bytesRead
        s.fixes = delegate.fixes
        s.count("points", delegate.points)
        s.count("points_without_time", delegate.withoutTime)
        s.count("points_bad_coordinates", delegate.badCoordinates)
        s.count("waypoints_ignored", delegate.waypoints)
        statistics = s
        if !delegate.sawGPX { throw FormatInputError.malformed(format: .gpx, reason: "no <gpx> element") }
        // libxml2's push parser does not always report a truncated document at its end.
        if delegate.depth != 0 {
            throw FormatInputError.malformed(format: .gpx, reason: "unexpected end of file inside <\(delegate.openElement)>")
        }
        if delegate.points > 0 && delegate.fixes == 0 {
            warnings.append("none of the \(delegate.points) track/route points has a <time>: nothing to emit")
        }
    }
}

private final class GPXDelegate: NSObject, XMLParserDelegate {
    let source: String
    var emit: ((RecordedObservation) throws -> Void)?
    var thrown: Error?
    var sawGPX = false
    var points = 0, fixes = 0, withoutTime = 0, badCoordinates = 0, waypoints = 0

    // The point being read.
    var inPoint = false
    var lat: Double?, lon: Double?
    var ele: Double?, time: EventTime?
    var hdop: Double?, vdop: Double?, pdop: Double?, sat: Int?, fixText: String?
    var speed: Double?, course: Double?
    var text = ""
    var collecting = false
    /// Open elements, and the name of the outermost still open.
    var depth = 0
    var openElement = ""

    init(source: String) { self.source = source }

    /// The name without its namespace prefix.
    static func local(_ name: String) -> Substring {
        let u = name.utf8
        if let i = u.lastIndex(of: 0x3A) { return Substring(u[u.index(after: i)...]) }
        return name[...]
    }

    /// `s` without leading and trailing ASCII white space (Foundation's `trimmingCharacters`
    /// cost a third of the parse time).
    static func trimmed(_ s: String) -> Substring {
        let u = s.utf8
        func isSpace(_ c: UInt8) -> Bool { c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 }
        guard let first = u.firstIndex(where: { !isSpace($0) }) else { return "" }
        let last = u.lastIndex(where: { !isSpace($0) })!
        return Substring(u[first...last])
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes: [String: String] = [:]) {
        let name = Self.local(elementName)
        if depth == 0 || name == "gpx" || name == "trk" || name == "rte" { openElement = String(name) }
        depth += 1
        switch name {
        case "gpx": sawGPX = true
        case "trkpt", "rtept":
            inPoint = true
            points += 1
            lat = attributes["lat"].flatMap { Double(Self.trimmed($0)) }
            lon = attributes["lon"].flatMap { Double(Self.trimmed($0)) }
            ele = nil; time = nil; hdop = nil; vdop = nil; pdop = nil; sat = nil
            fixText = nil; speed = nil; course = nil
        case "wpt": waypoints += 1
        default:
            if inPoint {
                text = ""
                collecting = true
            }
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        if collecting { text += string }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        let name = Self.local(elementName)
        depth -= 1
        if name == "trkpt" || name == "rtept" {
            endPoint(parser)
            return
        }
        guard inPoint, collecting else { return }
        collecting = false
        let v = Self.trimmed(text)
        switch name {
        case "ele": ele = Double(v)
        case "time": time = EventTime(iso8601: String(v))
        case "hdop": hdop = Double(v)
        case "vdop": vdop = Double(v)
        case "pdop": pdop = Double(v)
        case "sat": sat = Int(v)
        case "fix": fixText = String(v)
        case "speed": if speed == nil { speed = Double(v) }
        case "course", "bearing": if course == nil { course = Double(v) }
        default: break
        }
    }

    func endPoint(_ parser: XMLParser) {
        inPoint = false
        collecting = false
        guard thrown == nil else { return }
        guard let lat, let lon, (-90...90).contains(lat), (-180...180).contains(lon) else {
            badCoordinates += 1
            return
        }
        guard let time else {
            withoutTime += 1
            return
        }
        var mode: Fix.Mode = ele == nil ? .twoD : .threeD
        var quality: Fix.Quality?
        switch fixText {
        case "none"?: mode = .none
        case "2d"?: mode = .twoD
        case "3d"?: mode = .threeD
        case "dgps"?: quality = .dgps
        case "pps"?: quality = .pps
        default: break
        }
        var fix = Fix(source: source, mode: mode)
        if mode != .none {
            fix.latitude = lat
            fix.longitude = lon
            fix.altitudeMSL = ele.flatMap { $0.isFinite ? $0 : nil }
            fix.speed = speed.flatMap { $0.isFinite && $0 >= 0 ? $0 : nil }
            fix.course = course.flatMap { $0.isFinite ? $0 : nil }
            fix.quality = quality
            fix.satellitesUsed = sat
            fix.hdop = hdop
            fix.vdop = vdop
            fix.pdop = pdop
        }
        fixes += 1
        do {
            try emit?(.fix(fix, at: time))
        } catch {
            thrown = error
            parser.abortParsing()
        }
    }
}
