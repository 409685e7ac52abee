import LocusConditions
import LocusCore

/// What a beacon monitor knows about one device: its record of every condition with the
/// deadlines that can change it, and one ranging filter per identity it hears. Its whole memory
/// is a `Snapshot` the runtime keeps (`BeaconService.state`), so after a restart it continues
/// exactly where it was.
struct BeaconDeviceState: ConditionDevice {
    typealias Kind = BeaconKind
    /// A device's changes are stored whole (its `Snapshot`).
    typealias Changes = Void

    struct Entry {
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

    private(set) var entries: [String: Entry] = [:]
    private(set) var trackers: [BeaconIdentity: Tracker] = [:]
    /// When unknown and satisfied conditions (the only ones time can change) next need a look.
    private var queue = DeadlineQueue()
    /// Ids waiting for the first message to start their timeout.
    private var pendingStart = Set<String>()
    private var nextTrackerSweep: EventTime?
    /// Time of the last message seen.
    private(set) var lastTime: EventTime?
    /// Something `snapshot` holds changed since the last `takeChanges()`, besides `lastTime`
    /// and the time of the next tracker sweep (neither changes what the monitor publishes).
    private var modified = false

    /// A device has a record of every condition from the start: each starts `unknown`, and
    /// its exit timeout runs from the device's first message.
    init(monitoring conditions: [String: BeaconCondition], perDevice: Bool) {
        for id in conditions.keys.sorted() { put(conditions[id]!, replacing: nil, assuming: nil, perDevice: perDevice) }
    }

    func record(for condition: BeaconCondition) -> BeaconRecord {
        entries[condition.id]?.record ?? BeaconRecord(fingerprint: condition.fingerprint)
    }

    func forEachStoredRecord(_ body: (String, BeaconRecord) -> Void) { for (id, e) in entries { body(id, e.record) } }
    var storedRecordCount: Int { entries.count }

    /// A condition keeps its record when its match is unchanged, else starts unknown (beacon
    /// conditions take no `assuming`).
    mutating func put(_ condition: BeaconCondition, replacing old: BeaconCondition?, assuming: ConditionState?, perDevice: Bool) {
        modified = true
        var entry = entries[condition.id].flatMap { $0.record.fingerprint == condition.fingerprint ? $0 : nil }
            ?? Entry(record: BeaconRecord(fingerprint: condition.fingerprint))
        if entry.record.state == .unknown && entry.start == nil { pendingStart.insert(condition.id) }
        entry.scheduled = nil
        entries[condition.id] = entry
        // Due at once: the next message works out its deadline and ranging.
        if entry.record.state != .unsatisfied { schedule(condition.id, EventTime(milliseconds: .min)) }
    }

    mutating func remove(_ id: String) {
        guard entries.removeValue(forKey: id) != nil else { return }
        modified = true
        pendingStart.remove(id)
    }

    var hasChanges: Bool { modified }
    mutating func takeChanges() { modified = false }

    /// Makes sure `id` is looked at no later than `time`.
    private mutating func schedule(_ id: String, _ time: EventTime) {
        guard entries[id] != nil else { return }
        if let s = entries[id]!.scheduled, s <= time { return }
        entries[id]!.scheduled = time
        queue.push(time, id)
    }

    /// Applies one advertisement whose identity satisfies `ids` (sorted): first the deadlines
    /// up to its time, then the advertisement. Returns the events: those of deadlines first (by
    /// due time, then id), then enters by id.
    mutating func receive(_ o: BeaconObservation, matching ids: [String], conditions: [String: BeaconCondition],
                          settings: BeaconSettings, monitorID: String) -> [BeaconMonitorEvent] {
        var events = advance(to: o.time, conditions: conditions, settings: settings, monitorID: monitorID)
        guard !ids.isEmpty else { return events }
        modified = true
        updateTracker(o, settings: settings)
        for id in ids {
            // In place (a copy of the entry would retain all of it, and copy its set of
            // identities on an insert).
            guard let at = entries.index(forKey: id), let c = conditions[id] else { continue }
            guard let enter = Self.heard(o, c, &entries.values[at], monitorID: monitorID, rangeInterval: settings.rangeInterval) else { continue }
            pendingStart.remove(id)
            schedule(id, o.time.adding(seconds: settings.exitTimeout))
            if let nr = entries.values[at].nextRange { schedule(id, nr) }
            if case .some(let b) = enter { events.append(.enter(b)) }
        }
        return events
    }

    /// `o` heard for one matching condition. Returns whether it entered (with the event, nil
    /// when notify_on_entry is off), or nil when it was already satisfied.
    private static func heard(_ o: BeaconObservation, _ c: BeaconCondition, _ e: inout Entry, monitorID: String,
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
        let kind = e.record.decide(.satisfied, since: o.time, at: o.time, notifyOnEntry: c.notifyOnEntry,
                                   notifyOnExit: c.notifyOnExit, prefix: BeaconKind.eventPrefix)
        e.record.beacons = [o.identity]
        e.start = nil
        e.nextRange = c.ranging ? o.time.adding(seconds: rangeInterval) : nil
        guard kind == .enter else { return .some(nil) }
        var b = body(c, e.record, previous: previous, monitorID: monitorID)
        b.source = o.source
        b.rssi = o.rssi
        return .some(b)
    }

    private mutating func updateTracker(_ o: BeaconObservation, settings: BeaconSettings) {
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
    mutating func advance(to time: EventTime, conditions: [String: BeaconCondition], settings: BeaconSettings,
                          monitorID: String) -> [BeaconMonitorEvent] {
        if lastTime.map({ time > $0 }) ?? true { lastTime = time }
        if !pendingStart.isEmpty {
            modified = true
            for id in pendingStart.sorted() where entries[id] != nil {
                entries[id]!.start = time
                schedule(id, time.adding(seconds: settings.exitTimeout))
            }
            pendingStart.removeAll()
        }
        sweepTrackers(at: time, settings: settings)
        var events: [BeaconMonitorEvent] = []
        while let (due, id) = queue.peek(dueAt: time) {
            queue.pop()
            modified = true
            // A stale entry: the condition was removed, or scheduled again since.
            guard entries[id]?.scheduled == due, let c = conditions[id] else { continue }
            entries[id]!.scheduled = nil
            if let next = look(at: id, c, time: time, settings: settings, monitorID: monitorID, events: &events) {
                schedule(id, next)
            }
        }
        return events
    }

    /// Applies what is due for `id` at `time`; returns when it next needs a look (nil: never,
    /// until an advertisement or a new definition).
    private mutating func look(at id: String, _ c: BeaconCondition, time: EventTime, settings: BeaconSettings,
                               monitorID: String, events: inout [BeaconMonitorEvent]) -> EventTime? {
        let e = entries[id]!
        switch e.record.state {
        case .unsatisfied:
            return nil
        case .unknown:
            guard let start = e.start else { return nil }
            let deadline = start.adding(seconds: settings.exitTimeout)
            guard time >= deadline else { return deadline }
            // Unknown to unsatisfied is silent (the shared machine's rule).
            _ = entries[id]!.record.decide(.unsatisfied, since: deadline, at: time, notifyOnEntry: c.notifyOnEntry,
                                           notifyOnExit: c.notifyOnExit, prefix: BeaconKind.eventPrefix)
            return nil
        case .satisfied:
            let deadline = (e.record.lastHeard ?? time).adding(seconds: settings.exitTimeout)
            if time >= deadline {
                var r = e.record
                if r.decide(.unsatisfied, since: deadline, at: time, notifyOnEntry: c.notifyOnEntry,
                            notifyOnExit: c.notifyOnExit, prefix: BeaconKind.eventPrefix) == .exit {
                    events.append(.exit(Self.body(c, r, previous: .satisfied, monitorID: monitorID)))
                }
                r.beacons = []
                entries[id]!.record = r
                entries[id]!.nextRange = nil
                return nil
            }
            var next = deadline
            if c.ranging {
                var nr = e.nextRange ?? time
                if time >= nr {
                    events.append(.range(range(c, e, at: time, settings: settings, monitorID: monitorID)))
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

    private mutating func sweepTrackers(at time: EventTime, settings: BeaconSettings) {
        if let s = nextTrackerSweep, time < s { return }
        let keep = max(settings.rangeTimeout, settings.exitTimeout)
        let before = trackers.count
        trackers = trackers.filter { time.seconds(since: $0.value.lastHeard) <= keep }
        // A sweep's own time is not worth a write: a tracker it removes is older than
        // `range_timeout`, so neither ranging nor the next advertisement would use it.
        if trackers.count != before { modified = true }
        nextTrackerSweep = time.adding(seconds: keep)
    }

    /// The ranging list of `c` at `time`: its stay's beacons heard within `range_timeout`, nearest first.
    private func range(_ c: BeaconCondition, _ e: Entry, at time: EventTime, settings: BeaconSettings, monitorID: String) -> BeaconRange {
        var list: [BeaconRange.Entry] = []
        for identity in e.record.beacons {
            guard let t = trackers[identity], time.seconds(since: t.lastHeard) <= settings.rangeTimeout else { continue }
            let d = settings.proximity.distance(rssi: t.filter.estimate, measuredPower: Double(t.measuredPower))
            list.append(BeaconRange.Entry(identity: identity, rssi: t.filter.estimate, distance: d, proximity: t.band,
                                          measuredPower: t.measuredPower, lastHeard: t.lastHeard, samples: t.filter.samples))
        }
        list.sort { $0.distance != $1.distance ? $0.distance < $1.distance : $0.identity < $1.identity }
        return BeaconRange(beacon: c.id, monitor: monitorID, beacons: list, properties: c.properties)
    }

    static func body(_ c: BeaconCondition, _ r: BeaconRecord, previous: BeaconState, monitorID: String) -> BeaconEventBody {
        BeaconEventBody(beacon: c.id, monitor: monitorID, state: r.state, previousState: previous, refinement: r.refinement,
                        beacons: r.beacons.sorted(), lastHeard: r.lastHeard, since: r.since, properties: c.properties)
    }

    /// Everything the device's memory holds, for the runtime to keep; the conditions come from
    /// config and the service.
    struct Snapshot: Codable, Equatable {
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

    var snapshot: Snapshot {
        Snapshot(
            entries: entries.mapValues { .init(record: $0.record, start: $0.start, nextRange: $0.nextRange, scheduled: $0.scheduled) },
            trackers: trackers.sorted { $0.key < $1.key }.map {
                .init(identity: $0.key, filter: $0.value.filter, lastHeard: $0.value.lastHeard, band: $0.value.band,
                      measuredPower: $0.value.measuredPower)
            },
            pendingStart: pendingStart.sorted(), nextTrackerSweep: nextTrackerSweep, lastTime: lastTime)
    }

    /// Puts `s` back over a device that has every condition (as `init(monitoring:)` makes it). An
    /// entry whose condition is gone or has another match is dropped: that condition starts
    /// unknown.
    mutating func restore(_ s: Snapshot, changed: Bool = false) {
        for (id, e) in s.entries {
            guard var entry = entries[id], entry.record.fingerprint == e.record.fingerprint else { continue }
            entry.record = e.record
            entry.start = e.start
            entry.nextRange = e.nextRange
            entry.scheduled = e.scheduled
            entries[id] = entry
            pendingStart.remove(id)
        }
        for id in s.pendingStart where entries[id] != nil && s.entries[id]?.record.fingerprint == entries[id]!.record.fingerprint {
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
        modified = changed
    }
}
