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

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        visit.writeMembers(to: &w)
        w.key("departure"); w.time(departure)
        w.key("duration"); w.double(duration, fractionDigits: 3)
        w.endObject()
    }

    public init(from r: inout JSONReader) throws {
        var members = VisitMembers()
        var departure: EventTime?
        try r.readObject { r, k in
            if try members.read(k, from: &r) { return }
            // `duration` follows from the two times, so it is not read back.
            if k == "departure" { departure = try r.readTime() } else { try r.skipValue() }
        }
        guard let departure else { throw r.error("a visit departure needs departure") }
        self.init(visit: try members.arrival(r), departure: departure)
    }
}
