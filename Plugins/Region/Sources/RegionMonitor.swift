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

/// An event a region monitor decides.
struct RegionMonitorEvent: Sendable, Equatable {
    enum Kind: String, Sendable, Equatable {
        case enter = "region.enter", exit = "region.exit", dwell = "region.dwell"
    }

    var kind: Kind
    var body: RegionEventBody
}

/// The region service without I/O: the shared condition monitor (`ConditionMonitor`) with the
/// region kind's way of deciding a side from fixes.
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
typealias RegionMonitor = ConditionMonitor<RegionDeviceState>

extension ConditionMonitor where Device == RegionDeviceState {
    init(monitorID: String, hysteresis: RegionHysteresis, perDevice: Bool = false) {
        self.init(monitorID: monitorID, kind: RegionKind(hysteresis: hysteresis), perDevice: perDevice)
    }

    var hysteresis: RegionHysteresis { kind.hysteresis }
    /// Ids the one device's every fix must check.
    var active: Set<String> { devices[""]?.active ?? [] }
    /// Time of the last usable fix of `device`.
    func lastFixTime(device: String = "") -> EventTime? { devices[device]?.lastFixTime }
    var lastFixTime: EventTime? { lastFixTime() }
    /// The last usable fix of `device`, for state snapshots.
    func lastFix(device: String = "") -> RegionFix? { devices[device]?.lastFix }
    /// First usable fix of `device` (per device: conditions without a record are outside since).
    func firstFixTime(device: String) -> EventTime? { devices[device]?.firstFixTime }

    /// After a restart, before any fix: `device`'s state as committed. Records of conditions
    /// that are gone or have a new shape are dropped (the caller deletes them); for a device
    /// that had a fix, `newConditions` (added or reshaped while Locus was down) start `unknown`
    /// per device, and with one device every condition without a record starts `unknown`.
    /// Returns the ids of the records dropped.
    mutating func restore(device: String, times: RegionDeviceState.Times, records: [String: ConditionRecord],
                          newConditions: Set<String>) -> [String] {
        let perDevice = self.perDevice
        return withDevice(device) { d, conditions, _ in
            d = RegionDeviceState()
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
            }
            return dropped.sorted()
        }
    }

    /// `device`'s fix times and last fix, as committed.
    func times(device: String) -> RegionDeviceState.Times {
        let d = devices[device]
        return .init(firstFixTime: d?.firstFixTime, lastFixTime: d?.lastFixTime, lastFix: d?.lastFix)
    }

    /// Whether `fix` is used at all: accuracy within `max_accuracy`, valid coordinate, not older
    /// than `device`'s last used fix.
    func isUsable(_ fix: RegionFix, device: String = "") -> Bool {
        guard fix.coordinate.isValid else { return false }
        if let a = fix.horizontalAccuracy, !(a <= hysteresis.maxAccuracy && a >= 0) { return false }
        if let last = devices[device]?.lastFixTime, fix.time < last { return false }
        return true
    }

    /// Applies one fix of `device`; returns the events it causes, ordered by condition id.
    mutating func receive(_ fix: RegionFix, device: String = "") -> [RegionMonitorEvent] {
        guard isUsable(fix, device: device), perDevice || devices[device] != nil else { return [] }
        let perDevice = self.perDevice
        let monitorID = self.monitorID
        return withDevice(device) { d, conditions, kind in
            let hysteresis = kind.hysteresis
            let accuracy = fix.horizontalAccuracy ?? 0
            let margin = accuracy + hysteresis.minDistance
            var candidates = d.active
            kind.index.query(fix.coordinate) { candidates.insert($0) }
            // Once this fix is applied, a condition without a record is outside since the first fix.
            let firstFixTime = d.firstFixTime ?? fix.time
            var events: [RegionMonitorEvent] = []
            for id in candidates.sorted() {
                guard let c = conditions[id] else { continue }
                var record = d.record(for: c)
                let signed = c.shape.signedDistance(to: fix.coordinate)
                let side: RegionState = signed <= -margin ? .satisfied : signed >= margin ? .unsatisfied : .unknown
                if let event = Self.decide(c, &record, side: side, signed: signed, fix: fix, lastFixTime: d.lastFixTime,
                                           hysteresis: hysteresis, monitorID: monitorID) {
                    events.append(event)
                }
                if let dwell = Self.dwellEvent(c, &record, at: fix.time, fix: fix, signed: signed, monitorID: monitorID) {
                    events.append(dwell)
                }
                if let existing = d.records[id] {
                    if existing != record { d.set(record, for: id) }
                } else if perDevice, RegionDeviceState.impliedRecord(c, firstFixTime: firstFixTime) == record {
                    // Stays implied: sparse.
                } else {
                    d.set(record, for: id)
                }
            }
            if d.firstFixTime == nil { d.firstFixTime = fix.time }
            d.lastFixTime = fix.time
            d.lastFix = fix
            d.timesChanged = true
            if perDevice { for i in events.indices { events[i].body.device = device } }
            return events
        }
    }

    /// A clock tick: dwell events that are due, device by device (sorted).
    mutating func tick(at time: EventTime) -> [RegionMonitorEvent] {
        var events: [RegionMonitorEvent] = []
        let keys = devices.count == 1 ? Array(devices.keys) : devices.keys.sorted()
        let perDevice = self.perDevice
        let monitorID = self.monitorID
        for key in keys {
            // Only stays that still owe a dwell; ticks come every second.
            let due = devices[key]!.active.filter { id in
                guard let c = conditions[id], let r = devices[key]!.records[id] else { return false }
                return c.dwell != nil && r.state == .satisfied && !r.dwellPublished
            }
            guard !due.isEmpty else { continue }
            withDevice(key) { d, conditions, _ in
                for id in due.sorted() {
                    guard let c = conditions[id], var record = d.records[id] else { continue }
                    let signed = d.lastFix.map { c.shape.signedDistance(to: $0.coordinate) }
                    if var dwell = Self.dwellEvent(c, &record, at: time, fix: d.lastFix, signed: signed, monitorID: monitorID) {
                        if perDevice { dwell.body.device = key }
                        events.append(dwell)
                        d.set(record, for: id)
                    }
                }
            }
        }
        return events
    }

    /// A fix decided `side` (or nothing: `unknown`). An undecided or assumed state takes it at
    /// once; a decided one needs a run of deciding fixes on the new side lasting `min_duration`
    /// (the hysteresis, region's own part); the change itself is the shared condition machine's
    /// (`ConditionRecording.decide`).
    private static func decide(_ c: RegionCondition, _ r: inout ConditionRecord, side: RegionState, signed: Double,
                               fix: RegionFix, lastFixTime: EventTime?, hysteresis: RegionHysteresis,
                               monitorID: String) -> RegionMonitorEvent? {
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
        guard let kind = r.decide(side, since: since, at: fix.time, notifyOnEntry: c.notifyOnEntry,
                                  notifyOnExit: c.notifyOnExit, prefix: RegionKind.eventPrefix) else { return nil }
        // `detected_after_restart` is always false now: the runtime restores the state exactly,
        // so a restart is invisible here, and a replay gives the same events however often Locus
        // was restarted. (A run confirmed by its first fix after a gap says so by `since`
        // equal to `fix_time`.)
        return RegionMonitorEvent(kind: kind == .enter ? .enter : .exit,
                                  body: body(c, state: side, previous: previous, fix: fix, signed: signed, since: since,
                                             monitorID: monitorID))
    }

    private static func dwellEvent(_ c: RegionCondition, _ r: inout ConditionRecord, at time: EventTime, fix: RegionFix?,
                                   signed: Double?, monitorID: String) -> RegionMonitorEvent? {
        guard r.dwellDue(at: time, dwell: c.dwell, prefix: RegionKind.eventPrefix), let since = r.since else { return nil }
        var b = body(c, state: .satisfied, previous: .satisfied, fix: fix, signed: signed, since: since, monitorID: monitorID)
        b.dwell = time.seconds(since: since)
        return RegionMonitorEvent(kind: .dwell, body: b)
    }

    /// An event body for `c`; `signed` is the fix's signed distance (negative inside).
    static func body(_ c: RegionCondition, state: RegionState, previous: RegionState, fix: RegionFix?, signed: Double?,
                     since: EventTime?, monitorID: String) -> RegionEventBody {
        var b = RegionEventBody(region: c.id, monitor: monitorID, state: state, previousState: previous,
                                since: since, detectedAfterRestart: false, properties: c.properties)
        if let fix {
            b.fix = .init(source: fix.source, coordinate: fix.coordinate, horizontalAccuracy: fix.horizontalAccuracy, time: fix.time)
        }
        if let signed, signed.isFinite {
            b.distance = -signed
            if state != .unknown {
                b.confidence = confidence(insideDistance: -signed, accuracy: fix?.horizontalAccuracy, state: state)
            }
        }
        return b
    }

    /// A snapshot of `id`'s state for `device` (`region.state`), with its last usable fix if
    /// there is one.
    func snapshot(_ id: String, device: String = "") -> RegionEventBody? {
        guard let c = conditions[id], let r = record(id, device: device) else { return nil }
        let lastFix = devices[device]?.lastFix
        let signed = lastFix.map { c.shape.signedDistance(to: $0.coordinate) }
        var b = Self.body(c, state: r.state, previous: r.state, fix: lastFix, signed: signed, since: r.since, monitorID: monitorID)
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
