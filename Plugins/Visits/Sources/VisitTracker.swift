import LocusCore

/// The visit state of one fix source: a stay-point detector on event time.
///
/// - Before an arrival, `candidate` collects consecutive fixes within `radius` of their mean.
///   When they span `min_stay` without drifting (see `settle`), `visit.arrival` is due: arrival
///   time is the first fix's, centre the mean (fixed from then on, so the departure can repeat it).
/// - A fix outside the candidate or visit starts an *excursion*; it is only believed once fixes
///   outside have been seen for `departure_confirmation`. A fix back inside before that discards
///   it, so a lone outlier neither ends a visit nor restarts a stay that is forming.
/// - During a visit "outside" means beyond `radius` plus the fix's own accuracy; fixes in
///   between neither extend the visit nor confirm a departure.
/// - Meanwhile the excursion's fixes form a sliding window of their own (starting from the
///   candidate's fixes when there is no visit), which becomes the candidate once the excursion
///   is confirmed: a stay at the next place can start from them.
/// - Silence up to `max_gap` is part of whatever was going on: fixes before and after it inside
///   the radius are one stay. A longer silence ends a visit at its last fix inside and forgets
///   the candidate — whether noticed at the next fix or by a clock tick.
struct VisitTracker {
    enum Event: Equatable {
        case arrival(VisitArrival)
        case departure(VisitDeparture)
    }

    /// A published arrival and the last fix seen inside it.
    struct OpenVisit: Codable, Equatable {
        var arrival: VisitArrival
        var lastInside: EventTime
    }

    /// Fixes seen outside since the last one inside.
    struct Excursion: Codable, Equatable {
        /// Time of the first fix outside.
        var since: EventTime
        var fixes = StayCluster()
    }

    let source: String
    let configuration: VisitsConfiguration
    private var candidate = StayCluster()
    private var visit: OpenVisit?
    private var excursion: Excursion?
    private var lastFix: EventTime?

    init(source: String, configuration: VisitsConfiguration) {
        self.source = source
        self.configuration = configuration
    }

    /// Everything the tracker remembers: what `source` and `configuration` do not say.
    struct State: Codable, Equatable {
        var candidate: StayCluster
        var visit: OpenVisit?
        var excursion: Excursion?
        var lastFix: EventTime?
    }

    var state: State {
        get { State(candidate: candidate, visit: visit, excursion: excursion, lastFix: lastFix) }
        set {
            candidate = newValue.candidate
            visit = newValue.visit
            excursion = newValue.excursion
            lastFix = newValue.lastFix
        }
    }

    /// True when the tracker holds nothing: no fix seen, or everything forgotten after a silence.
    var isIdle: Bool { lastFix == nil }

    /// Takes a usable fix of this source; returns the events it causes, in order.
    mutating func receive(_ fix: StayFix) -> [Event] {
        var events: [Event] = []
        if let lastFix {
            // Per source, event time only moves forward: a late fix would rewrite history.
            guard fix.time >= lastFix else { return [] }
            if fix.time.seconds(since: lastFix) > configuration.maxGap { events += endAfterSilence() }
        }
        lastFix = fix.time
        if visit != nil {
            events += followVisit(fix)
        } else {
            grow(with: fix)
        }
        if visit == nil, settle() {
            events.append(.arrival(arrive()))
        }
        return events
    }

    /// Takes the bus clock: ends a visit whose source has been silent for more than `max_gap`.
    mutating func tick(at now: EventTime) -> [Event] {
        guard let lastFix, now.seconds(since: lastFix) > configuration.maxGap else { return [] }
        return endAfterSilence()
    }

    private mutating func grow(with fix: StayFix) {
        if candidate.isEmpty || candidate.distance(to: fix.coordinate) <= configuration.radius {
            candidate.append(fix)
            candidate.trimFront(radius: configuration.radius)
            excursion = nil
            return
        }
        // The excursion window starts from the candidate's fixes: those near where the source went
        // stay in it, so a stay that began while the candidate lagged behind a slow walk keeps its start.
        if let moved = followExcursion(fix, outside: true, seed: candidate) { candidate = moved }
    }

    private mutating func followVisit(_ fix: StayFix) -> [Event] {
        guard let open = visit else { return [] }
        let distance = Geodesic.distance(from: open.arrival.centre, to: fix.coordinate)
        if distance <= configuration.radius {
            visit?.lastInside = fix.time
            excursion = nil
            return []
        }
        // Between radius and radius + accuracy the fix cannot tell whether the source left.
        let outside = distance > configuration.radius + (fix.accuracy ?? 0)
        guard let moved = followExcursion(fix, outside: outside, seed: StayCluster()) else { return [] }
        visit = nil
        candidate = moved
        return [.departure(VisitDeparture(visit: open.arrival, departure: open.lastInside))]
    }

    /// Adds a fix that is not inside to the excursion, starting one (its window holding `seed`)
    /// if there is none. Returns the excursion's sliding window when this fix confirms it, nil otherwise.
    private mutating func followExcursion(_ fix: StayFix, outside: Bool, seed: StayCluster) -> StayCluster? {
        if excursion == nil {
            guard outside else { return nil }
            excursion = Excursion(since: fix.time, fixes: seed)
        }
        excursion?.fixes.slide(to: fix, radius: configuration.radius)
        guard outside, let current = excursion,
              fix.time.seconds(since: current.since) >= configuration.departureConfirmation else { return nil }
        excursion = nil
        return current.fixes
    }

    /// Whether the candidate is a stay: spans `min_stay` and did not drift. A candidate that
    /// drifted loses its oldest fixes until it does not, or no longer spans `min_stay`.
    private mutating func settle() -> Bool {
        while candidate.span >= configuration.minStay {
            let drift = candidate.drift()
            // Half the radius: with the centre test alone a source crossing the radius in a
            // straight line at up to 2 * radius / min_stay (0.67 m/s by default: a slow walk,
            // a traffic jam) would count as staying; this halves that speed. The fixes' own
            // noise moves the two halves apart too, hence their mean accuracy on top.
            if drift.metres <= configuration.radius / 2 + drift.meanAccuracy { return true }
            candidate.removeFirst()
        }
        return false
    }

    private mutating func arrive() -> VisitArrival {
        let arrival = VisitArrival(source: source, arrival: candidate.first!.time, centre: candidate.centre,
                                   horizontalAccuracy: candidate.spreadRadius(), fixes: candidate.count)
        visit = OpenVisit(arrival: arrival, lastInside: candidate.last!.time)
        candidate = StayCluster()
        excursion = nil
        return arrival
    }

    /// Forgets everything after a silence longer than `max_gap`; a visit ends at its last fix inside.
    private mutating func endAfterSilence() -> [Event] {
        let ended = visit.map { Event.departure(VisitDeparture(visit: $0.arrival, departure: $0.lastInside)) }
        candidate = StayCluster()
        visit = nil
        excursion = nil
        lastFix = nil
        return ended.map { [$0] } ?? []
    }
}
