import LocusCore

/// The events a condition's state machine publishes.
public enum ConditionEventKind: String, Sendable, Equatable {
    case enter, exit, dwell
}

/// One condition's record, as `CLMonitor.ConditionRecord`: its state and how it got there. The
/// record of a geographic condition (`region`) and of a beacon condition (`beacon`) carry the
/// same machine — states `unknown`/`satisfied`/`unsatisfied`, `assuming`, a dwell once per stay,
/// the last event — and each adds what its kind needs to decide (a region: the pending run of
/// fixes; a beacon: when it was last heard and which identities).
///
/// A conforming type stores these fields; the machine (`decide`, `assume`, `dwellDue`) is
/// written once, here, and is the only code that changes them.
public protocol ConditionRecording {
    var state: ConditionState { get set }
    /// `state` was given by `assuming` and nothing has confirmed it yet.
    var assumed: Bool { get set }
    /// When the current state began (satisfied: the enter time dwell counts from).
    var since: EventTime? { get set }
    /// The dwell event was published for the current stay.
    var dwellPublished: Bool { get set }
    /// Type and time of the last event published for this condition (`<kind>.enter`, …).
    var lastEventType: String? { get set }
    var lastEventTime: EventTime? { get set }
    /// The condition's fingerprint this record belongs to.
    var fingerprint: String { get }
    /// The record a condition starts from: `unknown`, nothing published.
    init(fingerprint: String)
}

extension ConditionRecording {
    /// Starts from `assuming` (`locus ctl region add … assuming=satisfied`): the state, marked
    /// assumed until the first deciding input confirms or corrects it.
    public mutating func assume(_ assuming: ConditionState?) {
        guard let assuming, assuming != .unknown else { return }
        state = assuming
        assumed = true
    }

    /// The input decided `side`, a state that began at `since` (the first deciding input, or a
    /// deadline), seen at `time`. Returns the event it publishes, if any:
    /// - the same state, confirmed: nothing (an assumed state becomes a decided one);
    /// - `unknown` → `unsatisfied`: nothing — a device starts outside almost all its conditions;
    /// - any other change: `enter` or `exit`, if the condition notifies it (the record keeps
    ///   it as its last event), with the dwell of the new stay still to come.
    /// `prefix` is the event types' first word (`region`, `beacon`).
    public mutating func decide(_ side: ConditionState, since: EventTime, at time: EventTime,
                                notifyOnEntry: Bool, notifyOnExit: Bool, prefix: String) -> ConditionEventKind? {
        guard side != .unknown else { return nil }
        let previous = state
        assumed = false
        guard side != previous else { return nil }
        state = side
        self.since = since
        dwellPublished = false
        if previous == .unknown && side == .unsatisfied { return nil }
        let kind: ConditionEventKind = side == .satisfied ? .enter : .exit
        guard side == .satisfied ? notifyOnEntry : notifyOnExit else { return nil }
        lastEventType = prefix + "." + kind.rawValue
        lastEventTime = time
        return kind
    }

    /// Whether the stay's dwell event is due at `time` (satisfied, decided, `dwell` seconds since
    /// the enter, not yet published); if so it is marked published and kept as the last event.
    public mutating func dwellDue(at time: EventTime, dwell: Double?, prefix: String) -> Bool {
        guard let dwell, state == .satisfied, !assumed, !dwellPublished, let since,
              time.seconds(since: since) >= dwell else { return false }
        dwellPublished = true
        lastEventType = prefix + "." + ConditionEventKind.dwell.rawValue
        lastEventTime = time
        return true
    }
}
