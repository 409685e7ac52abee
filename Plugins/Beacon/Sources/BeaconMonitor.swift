import LocusConditions
import LocusCore

/// The settings of one monitor (see `BeaconConfiguration`).
public struct BeaconSettings: Sendable, Equatable {
    public var exitTimeout: Double
    public var rangeInterval: Double
    public var rangeTimeout: Double
    public var proximity: ProximityModel
    public var filter: RSSIFilter.Parameters
    public var defaultMeasuredPower: Int

    public init(exitTimeout: Double = 30, rangeInterval: Double = 1, rangeTimeout: Double = 5,
                proximity: ProximityModel = .init(), filter: RSSIFilter.Parameters = .init(), defaultMeasuredPower: Int = -59) {
        self.exitTimeout = exitTimeout
        self.rangeInterval = rangeInterval
        self.rangeTimeout = rangeTimeout
        self.proximity = proximity
        self.filter = filter
        self.defaultMeasuredPower = defaultMeasuredPower
    }

    init(_ c: BeaconConfiguration) {
        self.init(exitTimeout: c.exitTimeout, rangeInterval: c.rangeInterval, rangeTimeout: c.rangeTimeout,
                  proximity: c.proximity, filter: c.filter, defaultMeasuredPower: c.defaultMeasuredPower)
    }
}

/// One advertisement as the monitor uses it: the decoded identity, never the MAC address.
public struct BeaconObservation: Sendable, Equatable {
    public var identity: BeaconIdentity
    public var rssi: Int
    /// Calibrated power at 1 m from the frame, dBm; nil uses `default_measured_power`.
    public var measuredPower: Int?
    public var source: String
    public var time: EventTime

    public init(identity: BeaconIdentity, rssi: Int, measuredPower: Int?, source: String, time: EventTime) {
        self.identity = identity
        self.rssi = rssi
        self.measuredPower = measuredPower
        self.source = source
        self.time = time
    }
}

/// Decides the states of many beacon conditions from advertisements and event time: the beacon
/// service without I/O.
///
/// Rules (reasons in Plugins/Beacon/README.md):
/// - A matching advertisement makes a condition satisfied at once (`beacon.enter` unless it
///   already was); its identity is the event's refinement.
/// - A satisfied condition becomes unsatisfied (`beacon.exit`) on the first message (an
///   advertisement or a clock tick) at or after `last heard + exit_timeout`.
/// - An unknown condition becomes unsatisfied silently `exit_timeout` after monitoring began
///   with nothing heard: a device starts out of range of almost all its beacons.
/// - Ranging: while satisfied, every `range_interval`, the stay's beacons heard within
///   `range_timeout`, with the smoothed RSSI of one `RSSIFilter` per identity (shared by every
///   condition it matches), the distance and the band with hysteresis, nearest first.
/// - Its whole memory is a `Snapshot` the runtime keeps (`BeaconService.state`): after a
///   restart the monitor continues exactly where it was, so the output is the one an
///   uninterrupted run gives. A restart after more than `exit_timeout` is like any other gap
///   in the input: the first message exits what was not heard since.
public struct BeaconMonitor {
    public enum Event: Sendable, Equatable {
        case enter(BeaconEventBody)
        case exit(BeaconEventBody)
        case range(BeaconRange)

        public var conditionID: String {
            switch self {
            case .enter(let b), .exit(let b): b.beacon
            case .range(let r): r.beacon
            }
        }
    }

    struct Entry {
        var condition: BeaconCondition
        var record: BeaconRecord
        /// When monitoring began (unknown conditions: the exit timeout counts from here).
        var start: EventTime?
        var nextRange: EventTime?
        /// The time of this condition's live entry in the deadline queue.
        var scheduled: EventTime?
    }

    /// One beacon identity's ranging state.
    struct Tracker {
        var filter: RSSIFilter
        var lastHeard: EventTime
        var band: Proximity
        var measuredPower: Int
    }

    public let monitorID: String
    public let settings: BeaconSettings
    private(set) var entries: [String: Entry] = [:]
    private var index = BeaconConditionIndex()
    private(set) var trackers: [BeaconIdentity: Tracker] = [:]
    /// When unknown and satisfied conditions (the only ones time can change) next need a look.
    private var queue = DeadlineQueue()
    /// Ids waiting for the first message to start their timeout.
    private var pendingStart = Set<String>()
    private var nextTrackerSweep: EventTime?
    /// Time of the last message seen.
    public private(set) var lastTime: EventTime?
    /// Something `snapshot` holds changed since the last `takeModified()`, besides `lastTime`
    /// and the time of the next tracker sweep (neither changes what the monitor publishes).
    private var modified = false

    /// The first word of the event types (`beacon.enter`).
    static let eventPrefix = "beacon"

    public init(monitorID: String, settings: BeaconSettings) {
        self.monitorID = monitorID
        self.settings = settings
    }

    public var count: Int { entries.count }
    public var ids: [String] { entries.keys.sorted() }
    public func condition(_ id: String) -> BeaconCondition? { entries[id]?.condition }
    public func record(_ id: String) -> BeaconRecord? { entries[id]?.record }


    /// Adds or replaces a condition. It keeps `stored` (or its current record) when the
    /// fingerprint matches, else starts unknown.
    public mutating func put(_ condition: BeaconCondition, record stored: BeaconRecord? = nil) {
        modified = true
        let old = entries[condition.id]
        var entry: Entry
        if let stored, stored.fingerprint == condition.fingerprint {
            entry = Entry(condition: condition, record: stored)
        } else if let old, old.record.fingerprint == condition.fingerprint {
            entry = old
            entry.condition = condition
        } else {
            entry = Entry(condition: condition, record: BeaconRecord(fingerprint: condition.fingerprint))
        }
        if let old { index.remove(old.condition) }
        index.insert(condition)
        if entry.record.state == .unknown && entry.start == nil { pendingStart.insert(condition.id) }
        entry.scheduled = nil
        entries[condition.id] = entry
        // Due at once: the next message works out its deadline and ranging.
        if entry.record.state != .unsatisfied { schedule(condition.id, EventTime(milliseconds: .min)) }
    }

    /// Makes sure `id` is looked at no later than `time`.
    private mutating func schedule(_ id: String, _ time: EventTime) {
        guard entries[id] != nil else { return }
        if let s = entries[id]!.scheduled, s <= time { return }
        entries[id]!.scheduled = time
        queue.push(time, id)
    }

    public mutating func remove(_ id: String) {
        guard let e = entries.removeValue(forKey: id) else { return }
        modified = true
        index.remove(e.condition)
        pendingStart.remove(id)
    }

    /// Whether `snapshot` changed (apart from times that change no event) since the last call.
    public mutating func takeModified() -> Bool {
        defer { modified = false }
        return modified
    }

    /// Ids of the conditions `identity` satisfies.
    public mutating func matching(_ identity: BeaconIdentity) -> [String] { index.matches(identity) }

    /// Applies one advertisement: first the deadlines up to its time, then the advertisement.
    /// Returns the events: those of deadlines first (by due time, then id), then enters by id.
    public mutating func receive(_ o: BeaconObservation) -> [Event] {
        var events = advance(to: o.time)
        let ids = index.matches(o.identity)
        guard !ids.isEmpty else { return events }
        modified = true
        updateTracker(o)
        for id in ids {
            // In place (a copy of the entry would retain all of it, and copy its set of
            // identities on an insert).
            guard let at = entries.index(forKey: id) else { continue }
            guard let enter = Self.heard(o, &entries.values[at], monitorID: monitorID, rangeInterval: settings.rangeInterval) else { continue }
            pendingStart.remove(id)
            schedule(id, o.time.adding(seconds: settings.exitTimeout))
            if let nr = entries.values[at].nextRange { schedule(id, nr) }
            if case .some(let b) = enter { events.append(.enter(b)) }
        }
        return events
    }

    /// `o` heard for one matching condition. Returns whether it entered (with the event, nil
    /// when notify_on_entry is off), or nil when it was already satisfied.
    private static func heard(_ o: BeaconObservation, _ e: inout Entry, monitorID: String,
                              rangeInterval: Double) -> BeaconEventBody?? {
        if e.record.lastHeard.map({ o.time > $0 }) ?? true { e.record.lastHeard = o.time }
        e.record.refinement = o.identity
        if e.record.state == .satisfied {
            if e.record.beacons.count < BeaconRecord.maxStayBeacons, !e.record.beacons.contains(o.identity) {
                e.record.beacons.insert(o.identity)
            }
            return nil
        }
        let previous = e.record.state
        let kind = e.record.decide(.satisfied, since: o.time, at: o.time, notifyOnEntry: e.condition.notifyOnEntry,
                                   notifyOnExit: e.condition.notifyOnExit, prefix: Self.eventPrefix)
        e.record.beacons = [o.identity]
        e.start = nil
        e.nextRange = e.condition.ranging ? o.time.adding(seconds: rangeInterval) : nil
        guard kind == .enter else { return .some(nil) }
        var b = body(e.condition, e.record, previous: previous, monitorID: monitorID)
        b.source = o.source
        b.rssi = o.rssi
        return .some(b)
    }

    /// A message without an advertisement (a clock tick): the deadlines up to `time`.
    public mutating func tick(at time: EventTime) -> [Event] { advance(to: time) }

    private mutating func updateTracker(_ o: BeaconObservation) {
        let power = o.measuredPower ?? settings.defaultMeasuredPower
        let rssi = Double(o.rssi)
        if var t = trackers[o.identity], o.time.seconds(since: t.lastHeard) <= settings.rangeTimeout, t.measuredPower == power {
            t.filter.update(rssi, dt: o.time.seconds(since: t.lastHeard), parameters: settings.filter)
            if o.time > t.lastHeard { t.lastHeard = o.time }
            let d = settings.proximity.distance(rssi: t.filter.estimate, measuredPower: Double(power))
            t.band = settings.proximity.band(d, from: t.band)
            trackers[o.identity] = t
        } else {
            let f = RSSIFilter(first: rssi, parameters: settings.filter)
            let d = settings.proximity.distance(rssi: rssi, measuredPower: Double(power))
            trackers[o.identity] = Tracker(filter: f, lastHeard: o.time, band: settings.proximity.band(d), measuredPower: power)
        }
    }

    /// Exits, silent unknown → unsatisfied and ranging that are due at `time`.
    private mutating func advance(to time: EventTime) -> [Event] {
        if lastTime.map({ time > $0 }) ?? true { lastTime = time }
        if !pendingStart.isEmpty {
            modified = true
            for id in pendingStart.sorted() where entries[id] != nil {
                entries[id]!.start = time
                schedule(id, time.adding(seconds: settings.exitTimeout))
            }
            pendingStart.removeAll()
        }
        sweepTrackers(at: time)
        var events: [Event] = []
        while let (due, id) = queue.peek(dueAt: time) {
            queue.pop()
            modified = true
            // A stale entry: the condition was removed, or scheduled again since.
            guard entries[id]?.scheduled == due else { continue }
            entries[id]!.scheduled = nil
            if let next = look(at: id, time: time, events: &events) { schedule(id, next) }
        }
        return events
    }

    /// Applies what is due for `id` at `time`; returns when it next needs a look (nil: never,
    /// until an advertisement or a new definition).
    private mutating func look(at id: String, time: EventTime, events: inout [Event]) -> EventTime? {
        let e = entries[id]!
        switch e.record.state {
        case .unsatisfied:
            return nil
        case .unknown:
            guard let start = e.start else { return nil }
            let deadline = start.adding(seconds: settings.exitTimeout)
            guard time >= deadline else { return deadline }
            let c = e.condition
            // Unknown to unsatisfied is silent (the shared machine's rule).
            _ = entries[id]!.record.decide(.unsatisfied, since: deadline, at: time, notifyOnEntry: c.notifyOnEntry,
                                           notifyOnExit: c.notifyOnExit, prefix: Self.eventPrefix)
            return nil
        case .satisfied:
            let deadline = (e.record.lastHeard ?? time).adding(seconds: settings.exitTimeout)
            if time >= deadline {
                var r = e.record
                if r.decide(.unsatisfied, since: deadline, at: time, notifyOnEntry: e.condition.notifyOnEntry,
                            notifyOnExit: e.condition.notifyOnExit, prefix: Self.eventPrefix) == .exit {
                    events.append(.exit(Self.body(e.condition, r, previous: .satisfied, monitorID: monitorID)))
                }
                r.beacons = []
                entries[id]!.record = r
                entries[id]!.nextRange = nil
                return nil
            }
            var next = deadline
            if e.condition.ranging {
                var nr = e.nextRange ?? time
                if time >= nr {
                    events.append(.range(range(e, at: time)))
                    nr = nr.adding(seconds: settings.rangeInterval)
                    // Far behind (a gap in the input): the next one interval after now.
                    if nr <= time { nr = time.adding(seconds: settings.rangeInterval) }
                }
                entries[id]!.nextRange = nr
                next = min(next, nr)
            }
            return next
        }
    }

    private mutating func sweepTrackers(at time: EventTime) {
        if let s = nextTrackerSweep, time < s { return }
        let keep = max(settings.rangeTimeout, settings.exitTimeout)
        let before = trackers.count
        trackers = trackers.filter { time.seconds(since: $0.value.lastHeard) <= keep }
        // A sweep's own time is not worth a write: a tracker it removes is older than
        // `range_timeout`, so neither ranging nor the next advertisement would use it.
        if trackers.count != before { modified = true }
        nextTrackerSweep = time.adding(seconds: keep)
    }

    /// The ranging list of `e` at `time`: its stay's beacons heard within `range_timeout`, nearest first.
    func range(_ e: Entry, at time: EventTime) -> BeaconRange {
        var list: [BeaconRange.Entry] = []
        for identity in e.record.beacons {
            guard let t = trackers[identity], time.seconds(since: t.lastHeard) <= settings.rangeTimeout else { continue }
            let d = settings.proximity.distance(rssi: t.filter.estimate, measuredPower: Double(t.measuredPower))
            list.append(BeaconRange.Entry(identity: identity, rssi: t.filter.estimate, distance: d, proximity: t.band,
                                          measuredPower: t.measuredPower, lastHeard: t.lastHeard, samples: t.filter.samples))
        }
        list.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.identity < $1.identity }
        return BeaconRange(beacon: e.condition.id, monitor: monitorID, beacons: list, properties: e.condition.properties)
    }

    static func body(_ c: BeaconCondition, _ r: BeaconRecord, previous: BeaconState, monitorID: String) -> BeaconEventBody {
        BeaconEventBody(beacon: c.id, monitor: monitorID, state: r.state, previousState: previous, refinement: r.refinement,
                        beacons: r.beacons.sorted(), lastHeard: r.lastHeard, since: r.since, properties: c.properties)
    }

    /// Everything the monitor remembers, for the runtime to keep; conditions come from config
    /// and the service.
    public struct Snapshot: Codable, Equatable {
        struct EntryState: Codable, Equatable {
            var record: BeaconRecord
            var start: EventTime?
            var nextRange: EventTime?
            var scheduled: EventTime?
        }
        struct TrackerState: Codable, Equatable {
            var identity: BeaconIdentity
            var filter: RSSIFilter
            var lastHeard: EventTime
            var band: Proximity
            var measuredPower: Int
        }
        var entries: [String: EntryState]
        var trackers: [TrackerState]
        var pendingStart: [String]
        var nextTrackerSweep: EventTime?
        var lastTime: EventTime?
    }

    public var snapshot: Snapshot {
        Snapshot(
            entries: entries.mapValues { .init(record: $0.record, start: $0.start, nextRange: $0.nextRange, scheduled: $0.scheduled) },
            trackers: trackers.sorted { $0.key < $1.key }.map {
                .init(identity: $0.key, filter: $0.value.filter, lastHeard: $0.value.lastHeard, band: $0.value.band,
                      measuredPower: $0.value.measuredPower)
            },
            pendingStart: pendingStart.sorted(), nextTrackerSweep: nextTrackerSweep, lastTime: lastTime)
    }

    /// Puts `s` back, after the conditions were put. An entry whose condition is gone or has
    /// another match is dropped: that condition starts as `put` left it (unknown).
    public mutating func restore(_ s: Snapshot) {
        for (id, e) in s.entries {
            guard var entry = entries[id], entry.condition.fingerprint == e.record.fingerprint else { continue }
            entry.record = e.record
            entry.start = e.start
            entry.nextRange = e.nextRange
            entry.scheduled = e.scheduled
            entries[id] = entry
            pendingStart.remove(id)
        }
        for id in s.pendingStart where entries[id] != nil && s.entries[id]?.record.fingerprint == entries[id]!.condition.fingerprint {
            pendingStart.insert(id)
        }
        // The queue holds each condition's live deadline (stale heap entries are skipped anyway).
        queue = DeadlineQueue()
        for id in entries.keys.sorted() { if let t = entries[id]!.scheduled { queue.push(t, id) } }
        trackers = [:]
        for t in s.trackers {
            trackers[t.identity] = Tracker(filter: t.filter, lastHeard: t.lastHeard, band: t.band, measuredPower: t.measuredPower)
        }
        nextTrackerSweep = s.nextTrackerSweep
        lastTime = s.lastTime
        modified = false
    }

    /// A snapshot of `id`'s state (`beacon.state`).
    public func snapshot(_ id: String) -> BeaconEventBody? {
        guard let e = entries[id] else { return nil }
        return Self.body(e.condition, e.record, previous: e.record.state, monitorID: monitorID)
    }

}
