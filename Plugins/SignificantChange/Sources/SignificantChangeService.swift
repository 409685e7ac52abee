import LocusCore

/// The significant-change service, like Core Location's: publishes `location.significant` for
/// the first usable fix, then whenever a usable fix is at least `min_distance` from the last
/// published position *and* at least `min_interval` after it.
///
/// "Usable" is a fix with a position from a configured source that meets
/// `max_horizontal_accuracy`: a fix with a large error can sit hundreds of metres from the
/// truth, and must not count as a move. Fixes older than the last published one are ignored,
/// so a late fix from a second source cannot take the position back in time. Fix-driven only
/// (no ticks): a move is reported with the first usable fix at which both conditions hold.
///
/// Its state is the last published position and time: kept across restarts, so a restart
/// does not publish the next fix again as a first fix.
public struct SignificantChangeService: StatefulService {
    public let id: String
    public let configuration: SignificantChangeConfiguration
    public var state = State()

    /// Everything the service remembers: the last published position (nil before the first).
    public struct State: Codable, Equatable {
        var last: Published?
    }

    struct Published: Codable, Equatable {
        var coordinate: Coordinate
        var time: EventTime
    }

    public init(id: String, configuration: SignificantChangeConfiguration) {
        self.id = id
        self.configuration = configuration
    }

    public var subscriptions: [String] {
        configuration.sources.isEmpty ? ["obs.fix."] : configuration.sources.map { "obs.fix.\($0)" }
    }

    public var produces: [String] { ["location.significant.\(id)"] }

    public mutating func receive(_ message: BusMessage, output: inout ServiceOutput) {
        guard let fix = message.payload(Fix.self), fix.hasPosition, let lat = fix.latitude, let lon = fix.longitude else { return }
        // The subscription `obs.fix.gps0` is a byte prefix and also matches `obs.fix.gps01`.
        guard configuration.sources.isEmpty || configuration.sources.contains(fix.source) else { return }
        guard configuration.meetsAccuracy(fix) else { return }
        let here = Coordinate(latitude: lat, longitude: lon)
        var distance: Double?, elapsed: Double?
        if let last = state.last {
            let d = Geodesic.distance(from: last.coordinate, to: here)
            let t = message.time.seconds(since: last.time)
            guard t >= 0, d >= configuration.minDistance, t >= configuration.minInterval else { return }
            distance = d
            elapsed = t
        }
        state.last = Published(coordinate: here, time: message.time)
        output.emit(SignificantLocation(source: fix.source, latitude: lat, longitude: lon, altitudeMSL: fix.altitudeMSL,
                                        horizontalAccuracy: fix.horizontalAccuracy, distance: distance, elapsed: elapsed),
                    topic: "location.significant.\(id)", time: message.time)
    }
}
