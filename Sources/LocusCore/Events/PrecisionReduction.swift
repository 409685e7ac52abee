import Foundation

/// Coarse positions for subscribers that must not get exact ones: the `precision:` of a publish
/// endpoint, the Linux counterpart of Core Location's "precise location" switched off.
///
/// Applied to the top level of every payload (docs/security.md lists what each event type keeps):
/// - `lat`/`lon` are snapped to the centre of a grid cell `metres` on a side (the longitude step
///   widens with latitude so cells stay square on the ground), written to 7 decimals;
/// - `h_accuracy` is raised to at least `metres` (and added where a position has none);
/// - `distance` is rounded to a multiple of `metres` (a distance to a known fence or beacon
///   would give the position back);
/// - speed, course, heading, their accuracies and altitude are removed (`removedKeys`), and so
///   is an NMEA `sentence` (`obs.nmea`), which holds the exact position in its own words.
/// Everything else (identifiers, states, times, properties) is kept as it is.
public struct PrecisionReduction: Sendable, Equatable {
    public let metres: Double

    /// Smallest and largest grid accepted: below 1 m nothing is hidden, beyond 1,000 km nothing is left.
    public static let range = 1.0...1_000_000.0
    /// Metres per degree of latitude on the mean Earth sphere (R = 6,371,008.8 m).
    static let metresPerDegree = 6_371_008.8 * Double.pi / 180
    /// Keys removed from every payload.
    public static let removedKeys: Set<String> = ["speed", "course", "heading", "speed_accuracy", "course_accuracy",
                                                  "alt_msl", "alt_hae", "v_accuracy", "vdop", "pdop", "sentence"]

    /// nil outside `range`.
    public init?(metres: Double) {
        guard metres.isFinite, Self.range.contains(metres) else { return nil }
        self.metres = metres
    }

    /// The centre of the grid cell holding (`lat`, `lon`).
    public func snap(lat: Double, lon: Double) -> (lat: Double, lon: Double) {
        let latStep = metres / Self.metresPerDegree
        let row = (min(max(lat, -90), 90) / latStep).rounded(.down)
        let snappedLat = min(max((row + 0.5) * latStep, -90), 90)
        // Cells near the poles are capped at 1/1000 of a circle of latitude so the step stays finite.
        let lonStep = min(360, latStep / max(cos(snappedLat * .pi / 180), 0.001))
        // Into [-180, 180) first (the hub does not check ranges), so every longitude of a cell,
        // and its centre, lands in the same cell: snapping a snapped position changes nothing.
        var l = lon.truncatingRemainder(dividingBy: 360)
        if l >= 180 { l -= 360 } else if l < -180 { l += 360 }
        let column = (l / lonStep).rounded(.down)
        var snappedLon = (column + 0.5) * lonStep
        // The last cell before the antimeridian is cut short by it: its centre is that of what is left.
        if snappedLon >= 180 { snappedLon = (column * lonStep + 180) / 2 }
        return (Self.seven(snappedLat), Self.seven(snappedLon))
    }

    /// `payload` reduced as described above.
    public func reduce(_ payload: [String: JSONValue]) -> [String: JSONValue] {
        var p = payload.filter { !Self.removedKeys.contains($0.key) }
        if case .number(let lat)? = p["lat"], case .number(let lon)? = p["lon"] {
            let s = snap(lat: lat, lon: lon)
            p["lat"] = .number(s.lat)
            p["lon"] = .number(s.lon)
            let accuracy = p["h_accuracy"]?.doubleValue ?? 0
            p["h_accuracy"] = .number(max(accuracy, metres))
        } else if case .number(let a)? = p["h_accuracy"] {
            p["h_accuracy"] = .number(max(a, metres))
        }
        if case .number(let d)? = p["distance"] {
            p["distance"] = .number((d / metres).rounded() * metres)
        }
        return p
    }

    /// An envelope body with its payload reduced; the header keeps its bytes and order. nil if
    /// the body is not an envelope with an object payload (the caller drops and counts it).
    public func reduce(envelope body: [UInt8]) -> [UInt8]? {
        let key = Array(#","payload":"#.utf8)
        // Producers write payload last (docs/protocol.md 4.4): then it runs to the closing brace.
        if let start = Self.lastIndex(of: key, in: body), body.last == 0x7D,
           case .object(let payload)? = try? JSONValue.decode(Array(body[(start + key.count)..<(body.count - 1)])) {
            return Array(body[..<(start + key.count)]) + JSONValue.object(reduce(payload)).encoded() + [0x7D]
        }
        guard case .object(var envelope)? = try? JSONValue.decode(body), case .object(let payload)? = envelope["payload"] else { return nil }
        envelope["payload"] = .object(reduce(payload))
        return JSONValue.object(envelope).encoded()
    }

    private static func seven(_ x: Double) -> Double { (x * 1e7).rounded() / 1e7 }

    private static func lastIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        // Compared in place: this runs for every message of a precision endpoint.
        var i = haystack.count - needle.count
        while i >= 0 {
            if haystack[i] == needle[0], haystack[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i -= 1
        }
        return nil
    }
}
