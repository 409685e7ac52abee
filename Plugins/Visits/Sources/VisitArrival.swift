import LocusCore

/// A place where a fix source has stayed (`visit.arrival`, topic `visit.arrival.<service-id>`).
///
/// Like Core Location's `CLVisit` arrival: published once the source has stayed within the
/// configured radius for `min_stay`, so the envelope time (when the stay was recognised) is at
/// least `min_stay` after `arrival` (when it began).
public struct VisitArrival: Payload, Equatable {
    public static let eventType = "visit.arrival"
    public static let schemaVersion = 1

    /// Id of the fix source that stays (the last segment of its `obs.fix.<source>` topic).
    public var source: String
    /// Event time of the first fix of the stay.
    public var arrival: EventTime
    /// Centre of the place: the mean of the stay's fixes up to the arrival event, WGS-84 degrees.
    public var centre: Coordinate
    /// Radius around `centre` holding the stay's fixes, metres (never below the fixes' median
    /// 1-sigma accuracy, so a handful of identical fixes does not claim 0 m).
    public var horizontalAccuracy: Double
    /// Fixes the stay had when it was recognised.
    public var fixes: Int

    public init(source: String, arrival: EventTime, centre: Coordinate, horizontalAccuracy: Double, fixes: Int) {
        self.source = source
        self.arrival = arrival
        self.centre = centre
        self.horizontalAccuracy = horizontalAccuracy
        self.fixes = fixes
    }
}

/// The visits service's state keeps an open visit's arrival with `Codable`, exactly (the wire
/// form rounds), so the departure after a restart repeats the arrival as it was.
extension VisitArrival: Codable {}
