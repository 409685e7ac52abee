import LocusCore

/// A fix with a position, with the event time of its message: what the service's parts pass
/// around once a fix has been found usable.
///
/// Codable for the service's state. `coordinate` is kept beside `fix`, although it repeats the
/// fix's position: the fix's wire form rounds to 1e-9°, and distances after a restore must be
/// the same to the last bit.
struct TimedFix: Sendable, Codable, Equatable {
    var fix: Fix
    var time: EventTime
    var coordinate: Coordinate

    /// Nil unless `fix` has a position.
    init?(_ fix: Fix, time: EventTime) {
        guard fix.hasPosition, let lat = fix.latitude, let lon = fix.longitude else { return nil }
        self.fix = fix
        self.time = time
        coordinate = Coordinate(latitude: lat, longitude: lon)
    }

    var source: String { fix.source }

    /// 1-sigma horizontal error; unknown counts as infinite, so such a fix loses every comparison.
    var horizontalAccuracy: Double { fix.horizontalAccuracy ?? .infinity }

    /// Metres to `other` on the WGS-84 ellipsoid.
    func distance(to other: TimedFix) -> Double { Geodesic.distance(from: coordinate, to: other.coordinate) }
}
