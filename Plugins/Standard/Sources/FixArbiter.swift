import LocusCore

/// Keeps the best current position estimate when several sources deliver fixes.
///
/// Rules, in order, for a usable fix F offered while the estimate is C:
/// 1. no estimate (at start, or after C expired): F is accepted, unless it is older than the
///    last fix ever accepted (time never goes back);
/// 2. F older than C: ignored;
/// 3. F from C's source and not older: accepted (a source's newest fix replaces its previous one);
/// 4. F from another source, newer than C and at least as good: accepted. "At least as good" is a
///    smaller or equal `h_accuracy`, with the `sources` order breaking ties; an unknown accuracy
///    is worse than any known one;
/// 5. F from another source at the same time as C: accepted only if strictly better, so two
///    receivers reporting the same epoch do not take turns;
/// 6. F newer but worse: ignored while C lies inside F's uncertainty circle (F adds nothing C
///    does not already say), accepted when C lies outside it (the device has moved away from C).
///
/// C expires `sourceTimeout` seconds after its own time (`expire(now:)`), so a source that goes
/// silent stops holding the estimate and the next source's fixes take over.
struct FixArbiter {
    enum Verdict: Equatable {
        case accepted
        /// Older than the current estimate (or than the last accepted fix).
        case older
        /// From another source at the current estimate's time, and not better.
        case sameTimeNotBetter
        /// Less accurate, and the current estimate lies inside its uncertainty circle.
        case insideUncertainty
    }

    let sources: SourceList
    let sourceTimeout: Double
    private(set) var current: TimedFix?
    /// Time of the last accepted fix, kept after the estimate expires.
    private var lastAccepted: EventTime?

    init(sources: SourceList, sourceTimeout: Double) {
        self.sources = sources
        self.sourceTimeout = sourceTimeout
    }

    /// What the arbiter remembers: the current estimate and the last accepted fix's time.
    struct State: Codable, Equatable {
        var current: TimedFix?
        var lastAccepted: EventTime?
    }

    var state: State {
        get { State(current: current, lastAccepted: lastAccepted) }
        set { (current, lastAccepted) = (newValue.current, newValue.lastAccepted) }
    }

    mutating func offer(_ f: TimedFix) -> Verdict {
        let verdict = judge(f)
        if verdict == .accepted {
            current = f
            lastAccepted = f.time
        }
        return verdict
    }

    private func judge(_ f: TimedFix) -> Verdict {
        if let last = lastAccepted, f.time < last { return .older }
        guard let c = current else { return .accepted }
        if f.source == c.source { return .accepted }
        let notWorse = f.horizontalAccuracy < c.horizontalAccuracy
            || (f.horizontalAccuracy == c.horizontalAccuracy && sources.preference(of: f.source) <= sources.preference(of: c.source))
        if f.time == c.time {
            let strictlyBetter = f.horizontalAccuracy < c.horizontalAccuracy
                || (f.horizontalAccuracy == c.horizontalAccuracy && sources.preference(of: f.source) < sources.preference(of: c.source))
            return strictlyBetter ? .accepted : .sameTimeNotBetter
        }
        if notWorse { return .accepted }
        // Worse and newer: it only counts if it disagrees with C beyond its own error.
        return c.distance(to: f) <= f.horizontalAccuracy ? .insideUncertainty : .accepted
    }

    /// Drops the estimate once it is `sourceTimeout` seconds old at `now`; returns what was dropped.
    mutating func expire(now: EventTime) -> TimedFix? {
        guard let c = current, now.seconds(since: c.time) >= sourceTimeout else { return nil }
        current = nil
        return c
    }
}
