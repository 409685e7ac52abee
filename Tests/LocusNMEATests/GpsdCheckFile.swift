import Foundation
import LocusCore

/// The TPV reports of a gpsd `.chk` file (gpsd_json(5)): flat JSON objects, one per line, so a
/// key scan is enough here.
struct GpsdTPV {
    var time: EventTime?
    var mode: Int
    var lat: Double?
    var lon: Double?
    var altMSL: Double?
    var altHAE: Double?
    var speed: Double?
    var track: Double?

    init?(line: Substring) {
        guard line.hasPrefix("{\"class\":\"TPV\"") else { return nil }
        mode = Self.number("mode", in: line).map { Int($0) } ?? 0
        if let t = Self.string("time", in: line) { time = EventTime(iso8601: t) }
        lat = Self.number("lat", in: line)
        lon = Self.number("lon", in: line)
        // Before gpsd 3.20 `alt` was the only altitude (MSL); since, `alt` = `altMSL`.
        altMSL = Self.number("altMSL", in: line) ?? Self.number("alt", in: line)
        altHAE = Self.number("altHAE", in: line)
        speed = Self.number("speed", in: line)
        track = Self.number("track", in: line)
    }

    static func number(_ key: String, in line: Substring) -> Double? {
        guard let r = line.range(of: "\"\(key)\":") else { return nil }
        let rest = line[r.upperBound...]
        let end = rest.firstIndex { $0 == "," || $0 == "}" } ?? rest.endIndex
        return Double(rest[..<end])
    }

    static func string(_ key: String, in line: Substring) -> String? {
        guard let r = line.range(of: "\"\(key)\":\"") else { return nil }
        let rest = line[r.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// All TPV lines of a `.chk` text.
    static func all(in text: String) -> [GpsdTPV] {
        // Echoed sentences end in CRLF, which Swift treats as one Character: split on both.
        text.split(whereSeparator: \.isNewline).compactMap { GpsdTPV(line: $0) }
    }
}
