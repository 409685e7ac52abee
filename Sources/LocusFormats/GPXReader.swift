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
/// Parsed with `XMLPushParser` chunk by chunk: memory is bounded, and malformed input of any
/// kind (bad UTF-8, broken markup, a truncated file) is a `FormatInputError.malformed`.
public struct GPXReader {
    public let options: DecodeOptions
    public private(set) var statistics = DecodeStatistics()
    public private(set) var warnings: [String] = []

    public init(options: DecodeOptions = .init()) { self.options = options }

    public mutating func read(_ input: ByteInput, emit: (RecordedObservation) throws -> Void) throws {
        var parser = XMLPushParser()
        var content = GPXContent(source: options.source)
        try withoutActuallyEscaping(emit) { emit in
            content.emit = emit
            defer { content.emit = nil }
            do {
                while try input.read({ chunk in try parser.feed(chunk, into: &content) }) {}
                try parser.finish()
            } catch let e as XMLSyntaxError {
                let inside = parser.openElement.map { " (inside <\($0)>)" } ?? ""
                throw FormatInputError.malformed(format: .gpx, reason: e.description + inside)
            }
        }
        var s = DecodeStatistics()
        s.bytes = input.bytesRead
        s.fixes = content.fixes
        s.count("points", content.points)
        s.count("points_without_time", content.withoutTime)
        s.count("points_bad_coordinates", content.badCoordinates)
        s.count("waypoints_ignored", content.waypoints)
        statistics = s
        if !content.sawGPX { throw FormatInputError.malformed(format: .gpx, reason: "no <gpx> element") }
        if content.points > 0 && content.fixes == 0 {
            warnings.append("none of the \(content.points) track/route points has a <time>: nothing to emit")
        }
    }
}

/// The GPX meaning of the parser's elements: one point at a time.
private struct GPXContent: XMLContentHandler {
    let source: String
    var emit: ((RecordedObservation) throws -> Void)?
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

    var wantsText: Bool { collecting }

    mutating func startElement(_ elementName: String, attributes list: [(name: String, value: String)]) throws {
        let name = Self.local(elementName)
        func attribute(_ key: String) -> String? { list.first { $0.name == key }?.value }
        switch name {
        case "gpx": sawGPX = true
        case "trkpt", "rtept":
            inPoint = true
            points += 1
            lat = attribute("lat").flatMap { Double(Self.trimmed($0)) }
            lon = attribute("lon").flatMap { Double(Self.trimmed($0)) }
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

    mutating func text(_ string: String) throws {
        if collecting { text += string }
    }

    mutating func endElement(_ elementName: String) throws {
        let name = Self.local(elementName)
        if name == "trkpt" || name == "rtept" {
            try endPoint()
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

    mutating func endPoint() throws {
        inPoint = false
        collecting = false
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
        try emit?(.fix(fix, at: time))
    }
}
