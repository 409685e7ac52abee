import LocusCore

/// The end of a visit (`visit.departure`, topic `visit.departure.<service-id>`).
///
/// Like Core Location's `CLVisit` departure it repeats the arrival's fields unchanged, so a
/// subscriber can pair it with the `visit.arrival` it ends, and adds when the stay ended.
public struct VisitDeparture: Payload, Equatable {
    public static let eventType = "visit.departure"
    public static let schemaVersion = 1

    /// The arrival this departure ends, exactly as it was published.
    public var visit: VisitArrival
    /// Event time of the last fix of the stay: the last time the source was seen at the place.
    public var departure: EventTime

    public init(visit: VisitArrival, departure: EventTime) {
        self.visit = visit
        self.departure = departure
    }

    /// Seconds from arrival to departure.
    public var duration: Double { departure.seconds(since: visit.arrival) }
}
