import Foundation
import LocusConditions
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
///   `min_duration`, counted from the last usable fix before the run (so after a gap in the
///   fixes — a tunnel, a power cut — the first deciding fix is enough). A fix deciding the old
///   side ends the run; an undecided fix neither ends nor confirms it.
/// - `region.dwell` once per stay, on the first fix or tick `dwell` seconds after the enter.
///
/// Conditions not in a device's `active` set are outside and have no pending run: the index
/// returns every condition whose box, grown by `max_accuracy + min_distance`, holds the fix;
/// any other condition is decisively outside for any usable fix, so it cannot change.
///
/// Devices: by default every fix is the one device's (key `""`). With `perDevice` each device
/// (the caller names it) has its own records and fix times against the shared conditions and
/// index; its records are sparse (`RegionDeviceState`), and its events carry it.
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

    /// What changed since the last `takeChanges()`, to store.
    public struct Changes: Sendable, Equatable {
        public struct Device: Sendable, Equatable {
            public var device: String
            public var changed: [String]
            public var removed: [String]
        }
        /// Devices whose records or first fix changed, sorted.
        public var devices: [Device] = []
        /// Conditions added or given a new shape, and conditions removed.
        public var conditionsPut: [String] = []
        public var conditionsRemoved: [String] = []
        public var isEmpty: Bool { devices.isEmpty && conditionsPut.isEmpty && conditionsRemoved.isEmpty }
    }

    public let monitorID: String
    public let hysteresis: RegionHysteresis
    /// One state per device (`per_device`): sparse records, events naming the device.
    public let perDevice: Bool
    private(set) var conditions: [String: RegionCondition] = [:]
    private let index = RegionIndex<String>()
    private(set) var devices: [String: RegionDeviceState] = [:]
    private var changedDevices = Set<String>()
    private var putConditions = Set<String>()
    private var removedConditions = Set<String>()

    public init(monitorID: String, hysteresis: RegionHysteresis, perDevice: Bool = false) {
        self.monitorID = monitorID
        self.hysteresis = hysteresis
        self.perDevice = perDevice
        if !perDevice { devices[""] = RegionDeviceState() }
    }

    public var count: Int { conditions.count }
    public var ids: [String] { conditions.keys.sorted() }
    /// Devices seen (per device), sorted.
    public var deviceIDs: [String] { perDevice ? devices.keys.sorted() : [] }
    public var deviceCount: Int { perDevice ? devices.count : 0 }
    /// Per device: whether `device` has a state.
    public func hasDevice(_ device: String) -> Bool { devices[device] != nil }
    public func condition(_ id: String) -> RegionCondition? { conditions[id] }
    /// `device`'s record of condition `id` (the only device's by default), stored or implied;
    /// nil when there is no such condition.
    public func record(_ id: String, device: String = "") -> ConditionRecord? {
        guard let c = conditions[id] else { return nil }
        return (devices[device] ?? RegionDeviceState()).record(for: c)
    }
    /// Records actually held for `device` (per device: the sparse ones).
    func storedRecordCount(device: String = "") -> Int { devices[device]?.records.count ?? 0 }
    /// Ids the one device's every fix must check.
    var active: Set<String> { devices[""]?.active ?? [] }
    /// Time of the last usable fix of `device`.
    public func lastFixTime(device: String = "") -> EventTime? { devices[device]?.lastFixTime }
    public var lastFixTime: EventTime? { lastFixTime() }
    /// The last usable fix of `device`, for state snapshots.
    public func lastFix(device: String = "") -> RegionFix? { devices[device]?.lastFix }
    /// First usable fix of `device` (per device: conditions without a record are outside since).
    public func firstFixTime(device: String) -> EventTime? { devices[device]?.firstFixTime }

    /// Conditions `device` is inside, sorted.
    public func ids(satisfiedBy device: String) -> [String] {
        (devices[device]?.records ?? [:]).filter { $0.value.state == .satisfied }.map(\.key).sorted()
    }

    /// Per condition, how many devices are inside it.
    public func satisfiedCounts() -> [String: Int] {
        var counts: [String: Int] = [:]
        for d in devices.values { for (id, r) in d.records where r.state == .satisfied { counts[id, default: 0] += 1 } }
        return counts
    }

    /// Files `id` in the index as the monitor's conditions have it now (or removes it): after
    /// a copy of the monitor was put back, since copies share the index.
    mutating func reindex(_ id: String) {
        if let c = conditions[id] {
            index.insert(id, c.shape.boundingBox.expanded(byMetres: hysteresis.maxAccuracy + hysteresis.minDistance))
        } else {
            index.remove(id)
        }
    }

    /// After a restart, before any fix: `device`'s state as committed. Records of conditions
    /// that are gone or have a new shape are dropped (the caller deletes them); for a device
    /// that had a fix, `newConditions` (added or reshaped while Locus was down) start `unknown`
    /// per device, and with one device every condition without a record starts `unknown`.
    /// Returns the ids of the records dropped.
    mutating func restore(device: String, times: RegionDeviceState.Times, records: [String: ConditionRecord],
                          newConditions: Set<String>) -> [String] {
        var d = RegionDeviceState()
        d.firstFixTime = times.firstFixTime
        d.lastFixTime = times.lastFixTime
        d.lastFix = times.lastFix
        var dropped: [String] = []
        for (id, r) in records {
            guard let c = conditions[id], c.fingerprint == r.fingerprint, !newConditions.contains(id) else {
                dropped.append(id)
                continue
            }
            d.records[id] = r
            if r.needsEveryFix { d.active.insert(id) }
        }
        for id in conditions.keys.sorted() where d.records[id] == nil {
            guard !perDevice || (times.firstFixTime != nil && newConditions.contains(id)) else { continue }
            d.set(ConditionRecord(fingerprint: conditions[id]!.fingerprint), for: id)
            changedDevices.insert(device)
        }
        devices[device] = d
        return dropped.sorted()
    }

    /// Adds or replaces a condition. A new shape starts from `record` if its fingerprint
    /// matches (one device), else from `assuming` (unknown when nil), for every device.
    public mutating func put(_ condition: RegionCondition, record stored: ConditionRecord? = nil, assuming: RegionState? = nil) {
        let id = condition.id
        let sameShape = conditions[id]?.fingerprint == condition.fingerprint
        conditions[id] = condition
        let margin = hysteresis.maxAccuracy + hysteresis.minDistance
        index.insert(id, condition.shape.boundingBox.expanded(byMetres: margin))
        removedConditions.remove(id)
        if !sameShape { putConditions.insert(id) }
        var fresh = ConditionRecord(fingerprint: condition.fingerprint)
        fresh.assume(assuming)
        let perDevice = self.perDevice
        for key in Array(devices.keys) {
            let changed = withDevice(key) { d in
                if perDevice {
                    if sameShape && assuming == nil { return false }
                    // A device without a fix implies unknown already.
                    if assuming == nil && d.firstFixTime == nil && d.records[id] == nil { return false }
                    d.set(fresh, for: id)
                } else if let stored, stored.fingerprint == condition.fingerprint {
                    d.set(stored, for: id)
                } else if let old = d.records[id], old.fingerprint == condition.fingerprint, assuming == nil {
                    d.set(old, for: id)
                } else {
                    d.set(fresh, for: id)
                }
                return true
            }
            if changed { changedDevices.insert(key) }
        }
    }

    public mutating func remove(_ id: String) {
        guard conditions.removeValue(forKey: id) != nil else { return }
        index.remove(id)
        putConditions.remove(id)
        removedConditions.insert(id)
        for key in Array(devices.keys) where devices[key]!.records[id] != nil {
            withDevice(key) { $0.drop(id) }
            changedDevices.insert(key)
        }
    }

    /// What changed (to store) since the last call.
    public mutating func takeChanges() -> Changes {
        var changes = Changes(conditionsPut: putConditions.sorted(), conditionsRemoved: removedConditions.sorted())
        putConditions.removeAll(keepingCapacity: true)
        removedConditions.removeAll(keepingCapacity: true)
        for key in changedDevices.sorted() where devices[key] != nil {
            withDevice(key) { d in
                if !d.changed.isEmpty || !d.removed.isEmpty || d.timesChanged {
                    changes.devices.append(.init(device: key, changed: d.changed.sorted(), removed: d.removed.sorted()))
                }
                d.changed.removeAll(keepingCapacity: true)
                d.removed.removeAll(keepingCapacity: true)
                d.timesChanged = false
            }
        }
        changedDevices.removeAll(keepingCapacity: true)
        return changes
    }

    /// Runs `body` on `key`'s state in place (taken out of the table meanwhile, so that its
    /// records are not copied on write).
    @discardableResult
    private mutating func withDevice<R>(_ key: String, _ body: (inout RegionDeviceState) -> R) -> R {
        var d = devices.removeValue(forKey: key) ?? RegionDeviceState()
        defer { devices[key] = d }
        return body(&d)
    }

    /// `device`'s fix times and last fix, as committed.
    func times(device: String) -> RegionDeviceState.Times {
        let d = devices[device]
        return .init(firstFixTime: d?.firstFixTime, lastFixTime: d?.lastFixTime, lastFix: d?.lastFix)
    }

    /// Whether `fix` is used at all: accuracy within `max_accuracy`, valid coordinate, not older
    /// than `device`'s last used fix.
    public func isUsable(_ fix: RegionFix, device: String = "") -> Bool {
        guard fix.coordinate.isValid else { return false }
        if let a = fix.horizontalAccuracy, !(a <= hysteresis.maxAccuracy && a >= 0) { return false }
        if let last = devices[device]?.lastFixTime, fix.time < last { return false }
        return true
    }

    /// Applies one fix of `device`; returns the events it causes, ordered by condition id.
    public mutating func receive(_ fix: RegionFix, device: String = "") -> [Event] {
        guard isUsable(fix, device: device), perDevice || devices[device] != nil else { return [] }
        // Taken out while it changes, so that its records are not copied (copy on write).
        var d = devices.removeValue(forKey: device) ?? RegionDeviceState()
        let accuracy = fix.horizontalAccuracy ?? 0
        let margin = accuracy + hysteresis.minDistance
        var candidates = d.active
        index.query(fix.coordinate) { candidates.insert($0) }
        // Once this fix is applied, a condition without a record is outside since the first fix.
        let firstFixTime = d.firstFixTime ?? fix.time
        var events: [Event] = []
        for id in candidates.sorted() {
            guard let c = conditions[id] else { continue }
            var entry = Entry(condition: c, record: d.record(for: c))
            let signed = c.shape.signedDistance(to: fix.coordinate)
            let side: RegionState = signed <= -margin ? .satisfied : signed >= margin ? .unsatisfied : .unknown
            if let event = decide(&entry, side: side, signed: signed, fix: fix, lastFixTime: d.lastFixTime) {
                events.append(event)
            }
            if let dwell = dwellEvent(&entry, at: fix.time, fix: fix, signed: signed) { events.append(dwell) }
            if let existing = d.records[id] {
                if existing != entry.record { d.set(entry.record, for: id) }
            } else if perDevice, RegionDeviceState.impliedRecord(c, firstFixTime: firstFixTime) == entry.record {
                // Stays implied: sparse.
            } else {
                d.set(entry.record, for: id)
            }
        }
        if d.firstFixTime == nil { d.firstFixTime = fix.time }
        d.lastFixTime = fix.time
        d.lastFix = fix
        d.timesChanged = true
        devices[device] = d
        changedDevices.insert(device)
        if perDevice { for i in events.indices { events[i].body.device = device } }
        return events
    }

    /// A clock tick: dwell events that are due, device by device (sorted).
    public mutating func tick(at time: EventTime) -> [Event] {
        var events: [Event] = []
        let keys = devices.count == 1 ? Array(devices.keys) : devices.keys.sorted()
        for key in keys {
            // Only stays that still owe a dwell; ticks come every second.
            let due = devices[key]!.active.filter { id in
                guard let c = conditions[id], let r = devices[key]!.records[id] else { return false }
                return c.dwell != nil && r.state == .satisfied && !r.dwellPublished
            }
            guard !due.isEmpty else { continue }
            var d = devices.removeValue(forKey: key)!
            for id in due.sorted() {
                guard let c = conditions[id], let r = d.records[id] else { continue }
                var entry = Entry(condition: c, record: r)
                let signed = d.lastFix.map { c.shape.signedDistance(to: $0.coordinate) }
                if var dwell = dwellEvent(&entry, at: time, fix: d.lastFix, signed: signed) {
                    if perDevice { dwell.body.device = key }
                    events.append(dwell)
                    d.set(entry.record, for: id)
                    changedDevices.insert(key)
                }
            }
            devices[key] = d
        }
        return events
    }

    /// The first word of the event types (`region.enter`).
    static let eventPrefix = "region"

    /// A fix decided `side` (or nothing: `unknown`). An undecided or assumed state takes it at
    /// once; a decided one needs a run of deciding fixes on the new side lasting `min_duration`
    /// (the hysteresis, region's own part); the change itself is the shared condition machine's
    /// (`ConditionRecording.decide`).
    private func decide(_ entry: inout Entry, side: RegionState, signed: Double, fix: RegionFix,
                        lastFixTime: EventTime?) -> Event? {
        var r = entry.record
        defer { entry.record = r }
        guard side != .unknown else { return nil }
        let since: EventTime
        if r.state == .unknown || r.assumed {
            r.runStart = nil
            r.runOrigin = nil
            since = fix.time
        } else if side == r.state {
            r.runStart = nil
            r.runOrigin = nil
            return nil
        } else {
            if r.runStart == nil {
                r.runStart = fix.time
                r.runOrigin = lastFixTime ?? fix.time
            }
            guard fix.time.seconds(since: r.runOrigin!) >= hysteresis.minDuration else { return nil }
            since = r.runStart!
            r.runStart = nil
            r.runOrigin = nil
        }
        let previous = r.state
        let c = entry.condition
        guard let kind = r.decide(side, since: since, at: fix.time, notifyOnEntry: c.notifyOnEntry,
                                  notifyOnExit: c.notifyOnExit, prefix: Self.eventPrefix) else { return nil }
        // `detected_after_restart` is always false now: the runtime restores the state exactly,
        // so a restart is invisible here, and a replay gives the same events however often Locus
        // was restarted. (A run confirmed by its first fix after a gap says so by `since`
        // equal to `fix_time`.)
        return Event(kind: kind == .enter ? .enter : .exit,
                     body: body(c, state: side, previous: previous, fix: fix, signed: signed, since: since, afterRestart: false))
    }

    private func dwellEvent(_ entry: inout Entry, at time: EventTime, fix: RegionFix?, signed: Double?) -> Event? {
        guard entry.record.dwellDue(at: time, dwell: entry.condition.dwell, prefix: Self.eventPrefix),
              let since = entry.record.since else { return nil }
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

    /// A snapshot of `id`'s state for `device` (`region.state`), with its last usable fix if
    /// there is one.
    public func snapshot(_ id: String, device: String = "") -> RegionEventBody? {
        guard let c = conditions[id], let r = record(id, device: device) else { return nil }
        let lastFix = devices[device]?.lastFix
        let signed = lastFix.map { c.shape.signedDistance(to: $0.coordinate) }
        var b = body(c, state: r.state, previous: r.state, fix: lastFix, signed: signed, since: r.since, afterRestart: false)
        b.assumed = r.assumed
        if perDevice { b.device = device }
        return b
    }

    /// P(device on the side `state` says): the fix's error across the boundary taken as normal
    /// with sigma = h_accuracy. A fix without accuracy is certain.
    static func confidence(insideDistance: Double, accuracy: Double?, state: RegionState) -> Double {
        let d = state == .satisfied ? insideDistance : -insideDistance
        guard let sigma = accuracy, sigma > 0 else { return d >= 0 ? 1 : 0 }
        return 0.5 * (1 + erf(d / (sigma * 2.0.squareRoot())))
    }
}
