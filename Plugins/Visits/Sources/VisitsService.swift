import LocusCore

/// Detects places where a fix source stays, like Core Location's visits: `visit.arrival` once
/// it has stayed within `radius` for `min_stay`, `visit.departure` once it has been seen away
/// for `departure_confirmation`. Each source has its own visits.
///
/// A pure state machine on event time: fixes and clock ticks in, events out, no I/O and no wall
/// clock (ticks only end visits of sources silent for longer than `max_gap`). The detector is
/// `VisitTracker`; this type routes messages to one tracker per source.
///
/// Its state is each source's tracker state (the stay forming, the visit in progress, the
/// excursion being confirmed, the last fix's time): kept across restarts, so a visit open at
/// a restart still ends with its departure.
public struct VisitsService: StatefulService {
    /// The service's id from config: the last segment of the topics it publishes on.
    public let id: String
    public let configuration: VisitsConfiguration
    /// One detector per fix source, created at its first usable fix.
    private var trackers: [String: VisitTracker] = [:]

    /// A service publishing on `visit.arrival.<id>` and `visit.departure.<id>`.
    public init(id: String, configuration: VisitsConfiguration) {
        self.id = id
        self.configuration = configuration
    }

    /// Everything the service remembers: each source's `VisitTracker.State`, by source. The
    /// trackers are made again from the configuration on restore.
    public struct State: Codable, Equatable {
        var trackers: [String: VisitTracker.State] = [:]
    }

    public var state: State {
        get { State(trackers: trackers.mapValues(\.state)) }
        set {
            trackers = [:]
            for (source, saved) in newValue.trackers {
                var tracker = VisitTracker(source: source, configuration: configuration)
                tracker.state = saved
                trackers[source] = tracker
            }
        }
    }

    /// The configured sources' fixes (all of `obs.fix.` if none) and `clock.tick`.
    public var subscriptions: [String] {
        (configuration.sources.isEmpty ? ["obs.fix."] : configuration.sources.map { "obs.fix.\($0)" }) + ["clock.tick"]
    }

    public var produces: [String] { [arrivalTopic, departureTopic] }

    var arrivalTopic: String { "visit.arrival.\(id)" }
    var departureTopic: String { "visit.departure.\(id)" }

    public mutating func receive(_ message: BusMessage, output: inout ServiceOutput) {
        if message.payload(ClockTick.self) != nil {
            // Sorted, because dictionary order differs between runs and replays must not.
            for source in trackers.keys.sorted() {
                publish(trackers[source]!.tick(at: message.time), at: message.time, to: &output)
                // A source silent for max_gap has nothing left to remember: drop it, so sources
                // that come and go (phones passing by a gateway) do not accumulate.
                if trackers[source]!.isIdle { trackers[source] = nil }
            }
            return
        }
        guard let fix = message.payload(Fix.self), let stayFix = usable(fix, at: message.time) else { return }
        var tracker = trackers.removeValue(forKey: fix.source) ?? VisitTracker(source: fix.source, configuration: configuration)
        publish(tracker.receive(stayFix), at: message.time, to: &output)
        trackers[fix.source] = tracker
    }

    /// The fix observed at `time` (its envelope time) as the detector uses it, or nil if it must be ignored.
    func usable(_ fix: Fix, at time: EventTime) -> StayFix? {
        // The subscription obs.fix.gps1 is a prefix and also matches obs.fix.gps10.
        guard configuration.sources.isEmpty || configuration.sources.contains(fix.source) else { return nil }
        guard fix.hasPosition, let latitude = fix.latitude, let longitude = fix.longitude else { return nil }
        let coordinate = Coordinate(latitude: latitude, longitude: longitude)
        guard coordinate.isValid, latitude.isFinite else { return nil }
        if let accuracy = fix.horizontalAccuracy, !(accuracy <= configuration.maxAccuracy) { return nil }
        return StayFix(time: time, coordinate: coordinate, accuracy: fix.horizontalAccuracy)
    }

    private func publish(_ events: [VisitTracker.Event], at time: EventTime, to output: inout ServiceOutput) {
        for event in events {
            switch event {
            case .arrival(let arrival): output.emit(arrival, topic: arrivalTopic, time: time)
            case .departure(let departure): output.emit(departure, topic: departureTopic, time: time)
            }
        }
    }
}
