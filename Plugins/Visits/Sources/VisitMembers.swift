import LocusCore

/// The members arrival and departure events share, collected while an event is read and
/// checked once it has been: both payload types read them the same way.
struct VisitMembers {
    var source: String?
    var arrival: EventTime?
    var latitude: Double?
    var longitude: Double?
    var horizontalAccuracy: Double?
    var fixes: Int?

    /// Reads the value of `k` if it is one of the shared members; false (nothing read) if not.
    mutating func read(_ k: JSONKey, from r: inout JSONReader) throws -> Bool {
        if k == "source" { source = try r.readString() }
        else if k == "arrival" { arrival = try r.readTime() }
        else if k == "lat" { latitude = try r.readDouble() }
        else if k == "lon" { longitude = try r.readDouble() }
        else if k == "h_accuracy" { horizontalAccuracy = try r.readDouble() }
        else if k == "fixes" { fixes = try r.readInt() }
        else { return false }
        return true
    }

    /// The arrival these members describe; throws (at `r`'s position) if one is missing.
    func arrival(_ r: JSONReader) throws -> VisitArrival {
        guard let source, let arrival, let latitude, let longitude, let horizontalAccuracy, let fixes else {
            throw r.error("a visit needs source, arrival, lat, lon, h_accuracy and fixes")
        }
        return VisitArrival(source: source, arrival: arrival, centre: Coordinate(latitude: latitude, longitude: longitude),
                            horizontalAccuracy: horizontalAccuracy, fixes: fixes)
    }
}
