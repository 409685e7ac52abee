import LocusCore

/// Counts the distance each fix source travels and publishes a reading every `every` metres.
///
/// A pure state machine, like every Locus service: fixes in, events out, time taken from the
/// messages, so a replay gives the same readings at any speed (see the golden case in Tests).
///
/// A `StatefulService`: declaring `state` is all it takes for Locus to keep the trips across
/// restarts (in `hub.state_directory`, committed with the readings they cause), so the count
/// goes on from where it was instead of starting again at 0.
public struct OdometerService: StatefulService {
    public let id: String
    public let configuration: OdometerConfiguration
    /// Everything the service remembers: each source's trip so far, by source.
    public var state: [String: Trip] = [:]

    /// One source's count: where it was last counted, the distance and fixes so far, and the
    /// milestones already reported.
    public struct Trip: Codable, Equatable {
        var lastCounted: Coordinate
        var distance: Double = 0
        var fixes = 1
        var readings = 0
    }

    public init(id: String, configuration: OdometerConfiguration) {
        self.id = id
        self.configuration = configuration
    }

    public var subscriptions: [String] {
        configuration.sources.isEmpty ? ["obs.fix."] : configuration.sources.map { "obs.fix.\($0)" }
    }

    public var produces: [String] { ["example.odometer.\(id)"] }

    public mutating func receive(_ message: BusMessage, output: inout ServiceOutput) {
        guard let fix = message.payload(Fix.self), fix.hasPosition, let lat = fix.latitude, let lon = fix.longitude else { return }
        // Subscriptions are topic prefixes: `obs.fix.gps1` also delivers `obs.fix.gps10`.
        guard configuration.sources.isEmpty || configuration.sources.contains(fix.source) else { return }
        if let accuracy = fix.horizontalAccuracy, accuracy > configuration.maxAccuracy { return }
        let here = Coordinate(latitude: lat, longitude: lon)
        guard var trip = state[fix.source] else {
            state[fix.source] = Trip(lastCounted: here)
            return
        }
        let step = Geodesic.distance(from: trip.lastCounted, to: here)
        guard step >= configuration.minStep else { return }
        trip.lastCounted = here
        trip.distance += step
        trip.fixes += 1
        // One reading when a step passes a milestone, also when it passes several (a gap in
        // the fixes): the reading says the distance, repeating it would say nothing more.
        let milestones = Int(trip.distance / configuration.every)
        if milestones > trip.readings {
            trip.readings = milestones
            output.emit(OdometerReading(source: fix.source, distance: trip.distance, fixes: trip.fixes),
                        topic: "example.odometer.\(id)", time: message.time)
        }
        state[fix.source] = trip
    }
}
