import Foundation
import LocusCore
import LocusRegions

/// The hysteresis settings of one service.
public struct RegionHysteresis: Sendable, Equatable {
    public var minDistance: Double
    public var minDuration: Double
    public var maxAccuracy: Double

    public init(minDistance: Double = 10, minDuration: Double = 20, maxAccuracy: Double = 100) {
        self.minDistance = minDistance
        self.minDuration = minDuration
        self.maxAccuracy = maxAccuracy
    }
}

/// A fix as the monitor uses it.
public struct RegionFix: Sendable, Equatable {
    public var source: String
    public var coordinate: Coordinate
    /// 1-sigma horizontal accuracy, metres; nil counts as exact.
    public var horizontalAccuracy: Double?
    public var time: EventTime

    public init(source: String, coordinate: Coordinate, horizontalAccuracy: Double?, time: EventTime) {
        self.source = source
        self.coordinate = coordinate
        self.horizontalAccuracy = horizontalAccuracy
        self.time = time
    }
}

/// Decides the states of many conditions from fixes: the region service without I/O.
///
/// Rules (see Plugins/Region/README.md for the reasons):
/// - A fix *decides* a side when its whole uncertainty circle is past the boundary by
///   `min_distance`: signed distance ≤ −(h_accuracy + min_distance) inside, ≥ +(…) outside.
///   Fixes worse than `max_accuracy` are not used at all.
/// - `unknown` and assumed states are set by the first deciding fix, at once.
/// - Otherwise a transition needs a run of deciding fixes on the new side lasting
///   `min_duration`, counted from the last usable fix before the run (so after a gap, or a
///   restart, the first deciding fix is enough). A fix deciding the old side ends the run;
///   an undecided fix neither ends nor confirms it.
/// - `region.dwell` once per stay, on the first fix or tick `dwell` seconds after the enter.
///
/// Conditions not in `active` are outside and have no pending run: the index returns every
/// condition whose box, grown by `max_accuracy + min_distance`, holds the fix; any other
/// condition is decisively outside for any usable fix, so it cannot change.
public struct RegionMonitor {
    public enum EventKind: String, Sendable, Equatable {
        case enter = "region.enter", exit = "region.exit", dwell = "region.dwell"
    }

    public struct Event: Sendable, Equatable {
        public var kind: EventKind
        public var body: RegionEventBody
    }

    struct Entry {
        var condition: RegionCondition
        var record: ConditionRecord
    }

    public let monitorID: String
    public let hysteresis: RegionHysteresis
    private(set) var entries: [String: Entry] = [:]
    private let index = RegionIndex<String>()
    /// Ids that must be checked against every fix (`ConditionRecord.needsEveryFix`).
    private(set) var active = Set<String>()
    /// Time of the last usable fix.
    public private(set) var lastFixTime: EventTime?
    /// The last usable fix, for state snapshots.
    public private(set) var lastFix: RegionFix?
    /// `lastFixTime` as stored before a restart; the next usable fix is the first after it.
    private var restartFence: EventTime?
    /// Ids whose record changed since `takeChangedIDs()`.
    private var changed = Set<String>()
    /// Ids removed since `takeChangedIDs()`.
    private var removed = Set<String>()

    public init(monitorID: String, hysteresis: RegionHysteresis) {
        self.monitorID = monitorID
        self.hysteresis = hysteresis
    }

    public var count: Int { entries.count }
    public var ids: [String] { entries.keys.sorted() }
    public func condition(_ id: String) -> RegionCondition? { entries[id]?.condition }
    public func record(_ id: String) -> ConditionRecord? { entries[id]?.record }

    /// After loading stored state: the stored last fix time, so the next run that starts is
    /// known to span the time Locus was down.
    public mutating func resume(lastFixTime: EventTime?) {
        self.lastFixTime = lastFixTime
        restartFence = lastFixTime
    }

    /// Adds or replaces a condition. A new shape starts from `record` if its fingerprint
    /// matches, else from `assuming` (unknown when nil).
    public mutating func put(_ condition: RegionCondition, record stored: ConditionRecord? = nil, assuming: RegionState? = nil) {
        var record: ConditionRecord
        if let stored, stored.fingerprint == condition.fingerprint {
            record = stored
        } else if let old = entries[condition.id]?.record, old.fingerprint == condition.fingerprint, assuming == nil {
            record = old
        } else {
            record = ConditionRecord(fingerprint: condition.fingerprint)
            if let assuming, assuming != .unknown {
                record.state = assuming
                record.assumed = true
            }
        }
        entries[condition.id] = Entry(condition: condition, record: record)
        let margin = hysteresis.maxAccuracy + hysteresis.minDistance
        index.insert(condition.id, condition.shape.boundingBox.expanded(byMetres: margin))
        updateActive(condition.id, record)
        removed.remove(condition.id)
        changed.insert(condition.id)
    }

    public mutating func remove(_ id: String) {
        guard entries.removeValue(forKey: id) != nil else { return }
        index.remove(id)
        active.remove(id)
        changed.remove(id)
        removed.insert(id)
    }

    /// Ids whose records changed (to store) and ids removed (to delete) since the last call.
    public mutating func takeChanges() -> (changed: [String], removed: [String]) {
        defer { changed.removeAll(keepingCapacity: true); removed.removeAll(keepingCapacity: true) }
        return (changed.sorted(), removed.sorted())
    }

    /// Whether `fix` is used at all: accuracy within `max_accuracy`, valid coordinate, not older
    /// than the last used fix.
    public func isUsable(_ fix: RegionFix) -> Bool {
        guard fix.coordinate.isValid else { return false }
        if let a = fix.horizontalAccuracy, !(a <= hysteresis.maxAccuracy && a >= 0) { return false }
        if let last = lastFixTime, fix.time < last { return false }
        return true
    }

    /// Applies one fix; returns the events it causes, ordered by condition id.
    public mutating func receive(_ fix: RegionFix) -> [Event] {
        guard isUsable(fix) else { return [] }
        let accuracy = fix.horizontalAccuracy ?? 0
        let margin = accuracy + hysteresis.minDistance
        var candidates = active
        index.query(fix.coordinate) { candidates.insert($0) }
        let afterRestart = restartFence != nil && lastFixTime == restartFence
        var events: [Event] = []
        for id in candidates.sorted() {
            guard var entry = entries[id] else { continue }
            let signed = entry.condition.shape.signedDistance(to: fix.coordinate)
            let side: RegionState = signed <= -margin ? .satisfied : signed >= margin ? .unsatisfied : .unknown
            let before = entry.record
            if let event = decide(&entry, side: side, signed: signed, fix: fix, afterRestart: afterRestart) {
                events.append(event)
            }
            if let dwell = dwellEvent(&entry, at: fix.time, fix: fix, signed: signed) { events.append(dwell) }
            if entry.record != before {
                entries[id] = entry
                updateActive(id, entry.record)
                changed.insert(id)
            }
        }
        lastFixTime = fix.time
        lastFix = fix
        restartFence = nil
        return events
    }

    /// A clock tick: dwell events that are due.
    public mutating func tick(at time: EventTime) -> [Event] {
        var events: [Event] = []
        // Only stays that still owe a dwell; ticks come every second.
        let due = active.filter { id in
            guard let e = entries[id] else { return false }
            return e.condition.dwell != nil && e.record.state == .satisfied && !e.record.dwellPublished
        }
        for id in due.sorted() {
            guard var entry = entries[id] else { continue }
            let signed = lastFix.map { entry.condition.shape.signedDistance(to: $0.coordinate) }
            if let dwell = dwellEvent(&entry, at: time, fix: lastFix, signed: signed) {
                events.append(dwell)
                entries[id] = entry
                changed.insert(id)
            }
        }
        return events
    }

    private mutating func decide(_ entry: inout Entry, side: RegionState, signed: Double, fix: RegionFix,
                                 afterRestart: Bool) -> Event? {
        var r = entry.record
        defer { entry.record = r }
        guard side != .unknown else { return nil }
        if r.state == .unknown || r.assumed {
            let previous = r.state
            r.assumed = false
            r.runStart = nil
            r.runOrigin = nil
            r.runAfterRestart = false
            guard side != previous else { return nil }
            r.state = side
            r.since = fix.time
            r.dwellPublished = false
            // Leaving unknown for outside is silent: a device starts outside almost all of its
            // regions. Correcting a wrong assumption is a real change and is published.
            if previous == .unknown && side == .unsatisfied { return nil }
            return transition(&r, entry.condition, to: side, from: previous, since: fix.time, signed: signed, fix: fix,
                              afterRestart: false)
        }
        if side == r.state {
            r.runStart = nil
            r.runOrigin = nil
            r.runAfterRestart = false
            return nil
        }
        if r.runStart == nil {
            r.runStart = fix.time
            r.runOrigin = lastFixTime ?? fix.time
            r.runAfterRestart = afterRestart
        }
        guard fix.time.seconds(since: r.runOrigin!) >= hysteresis.minDuration else { return nil }
        let since = r.runStart!
        // Confirmed by the run's first fix, which was the first after a restart: the device
        // crossed while Locus was down. (A replay that resumes after a restart confirms runs
        // with later fixes, as an uninterrupted run does.)
        let restarted = r.runAfterRestart && fix.time == since
        let previous = r.state
        r.state = side
        r.since = since
        r.runStart = nil
        r.runOrigin = nil
        r.runAfterRestart = false
        r.dwellPublished = false
        return transition(&r, entry.condition, to: side, from: previous, since: since, signed: signed, fix: fix,
                          afterRestart: restarted)
    }

    private func transition(_ r: inout ConditionRecord, _ c: RegionCondition, to side: RegionState, from previous: RegionState,
                            since: EventTime, signed: Double, fix: RegionFix, afterRestart: Bool) -> Event? {
        let kind: EventKind = side == .satisfied ? .enter : .exit
        guard side == .satisfied ? c.notifyOnEntry : c.notifyOnExit else { return nil }
        r.lastEventType = kind.rawValue
        r.lastEventTime = fix.time
        return Event(kind: kind, body: body(c, state: side, previous: previous, fix: fix, signed: signed, since: since,
                                            afterRestart: afterRestart))
    }

    private func dwellEvent(_ entry: inout Entry, at time: EventTime, fix: RegionFix?, signed: Double?) -> Event? {
        guard let dwell = entry.condition.dwell, entry.record.state == .satisfied, !entry.record.assumed,
              !entry.record.dwellPublished, let since = entry.record.since,
              time.seconds(since: since) >= dwell else { return nil }
        entry.record.dwellPublished = true
        entry.record.lastEventType = EventKind.dwell.rawValue
        entry.record.lastEventTime = time
        var b = body(entry.condition, state: .satisfied, previous: .satisfied, fix: fix, signed: signed, since: since,
                     afterRestart: false)
        b.dwell = time.seconds(since: since)
        return Event(kind: .dwell, body: b)
    }

    /// An event body for `c`; `signed` is the fix's signed distance (negative inside).
    func body(_ c: RegionCondition, state: RegionState, previous: RegionState, fix: RegionFix?, signed: Double?,
              since: EventTime?, afterRestart: Bool) -> RegionEventBody {
        var b = RegionEventBody(region: c.id, monitor: monitorID, state: state, previousState: previous,
                                since: since, detectedAfterRestart: afterRestart, properties: c.properties)
        if let fix {
            b.fix = .init(source: fix.source, coordinate: fix.coordinate, horizontalAccuracy: fix.horizontalAccuracy, time: fix.time)
        }
        if let signed, signed.isFinite {
            b.distance = -signed
            if state != .unknown {
                b.confidence = Self.confidence(insideDistance: -signed, accuracy: fix?.horizontalAccuracy, state: state)
            }
        }
        return b
    }

    /// A snapshot of `id`'s state (`region.state`), with the last usable fix if there is one.
    public func snapshot(_ id: String) -> RegionEventBody? {
        guard let e = entries[id] else { return nil }
        let signed = lastFix.map { e.condition.shape.signedDistance(to: $0.coordinate) }
        var b = body(e.condition, state: e.record.state, previous: e.record.state, fix: lastFix, signed: signed,
                     since: e.record.since, afterRestart: false)
        b.assumed = e.record.assumed
        return b
    }

    /// P(device on the side `state` says): the fix's error across the boundary taken as normal
    /// with sigma = h_accuracy. A fix without accuracy is certain.
    static func confidence(insideDistance: Double, accuracy: Double?, state: RegionState) -> Double {
        let d = state == .satisfied ? insideDistance : -insideDistance
        guard let sigma = accuracy, sigma > 0 else { return d >= 0 ? 1 : 0 }
        return 0.5 * (1 + erf(d / (sigma * 2.0.squareRoot())))
    }

    private mutating func updateActive(_ id: String, _ record: ConditionRecord) {
        if record.needsEveryFix { active.insert(id) } else { active.remove(id) }
    }
}
