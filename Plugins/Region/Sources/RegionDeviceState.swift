import LocusConditions
import LocusCore

/// What a region monitor knows about one device: its records, which of them every fix must
/// check, and its last fix.
///
/// With one device (the default) every condition has a record. With one state per device
/// (`per_device`) records are sparse, so that 10,000 devices × 10,000 fences do not hold 10⁸
/// records: a condition without a record for the device is `unknown` until the device's first
/// usable fix and `unsatisfied` since that fix afterwards — exactly the record that fix would
/// have written, since any condition the index does not return is decisively outside. Records
/// exist for the conditions near the device's fixes and for conditions added after its first fix.
struct RegionDeviceState: ConditionDevice {
    typealias Kind = RegionKind

    /// What a device changed since the last `takeChanges()`: the records to write and to
    /// delete (its times are written with them).
    struct Changes: Equatable {
        var changed: [String]
        var removed: [String]
    }

    var records: [String: ConditionRecord] = [:]
    /// Ids of records that must be checked against every fix (`ConditionRecord.needsEveryFix`).
    var active = Set<String>()
    /// Time of the last usable fix.
    var lastFixTime: EventTime?
    /// The last usable fix, for state snapshots and dwell events.
    var lastFix: RegionFix?
    /// Time of the first usable fix: conditions without a record are outside since then.
    var firstFixTime: EventTime?
    /// Ids whose record changed, and ids whose record was removed, since the last `takeChanges`.
    var changed = Set<String>()
    var removed = Set<String>()
    /// The fix times or the last fix changed since the last `takeChanges`.
    var timesChanged = false

    init() {}

    /// A new device stores no record: each is implied until a fix comes near it.
    init(monitoring conditions: [String: RegionCondition], perDevice: Bool) {}

    /// The record of `condition`, stored or implied.
    func record(for condition: RegionCondition) -> ConditionRecord {
        records[condition.id] ?? Self.impliedRecord(condition, firstFixTime: firstFixTime)
    }

    func forEachStoredRecord(_ body: (String, ConditionRecord) -> Void) { for (id, r) in records { body(id, r) } }
    var storedRecordCount: Int { records.count }

    /// A new or reshaped condition starts from `assuming` (unknown when nil). One device keeps a
    /// record for every condition, and keeps its record when only the definition's other parts
    /// changed; per device a device without a fix implies `unknown` already, and an unchanged
    /// shape keeps whatever the device has.
    mutating func put(_ condition: RegionCondition, replacing old: RegionCondition?, assuming: ConditionState?, perDevice: Bool) {
        let id = condition.id
        var fresh = ConditionRecord(fingerprint: condition.fingerprint)
        fresh.assume(assuming)
        if perDevice {
            if old?.fingerprint == condition.fingerprint && assuming == nil { return }
            if assuming == nil && firstFixTime == nil && records[id] == nil { return }
            set(fresh, for: id)
        } else if let kept = records[id], kept.fingerprint == condition.fingerprint, assuming == nil {
            set(kept, for: id)
        } else {
            set(fresh, for: id)
        }
    }

    mutating func remove(_ id: String) { drop(id) }

    var hasChanges: Bool { !changed.isEmpty || !removed.isEmpty || timesChanged }

    mutating func takeChanges() -> Changes {
        defer {
            changed.removeAll(keepingCapacity: true)
            removed.removeAll(keepingCapacity: true)
            timesChanged = false
        }
        return Changes(changed: changed.sorted(), removed: removed.sorted())
    }

    /// The record of a condition without a stored one: `unknown` before the first usable fix,
    /// `unsatisfied` since it afterwards.
    static func impliedRecord(_ condition: RegionCondition, firstFixTime: EventTime?) -> ConditionRecord {
        var r = ConditionRecord(fingerprint: condition.fingerprint)
        if let firstFixTime {
            r.state = .unsatisfied
            r.since = firstFixTime
        }
        return r
    }

    mutating func set(_ record: ConditionRecord, for id: String) {
        records[id] = record
        if record.needsEveryFix { active.insert(id) } else { active.remove(id) }
        removed.remove(id)
        changed.insert(id)
    }

    mutating func drop(_ id: String) {
        guard records.removeValue(forKey: id) != nil else { return }
        active.remove(id)
        changed.remove(id)
        removed.insert(id)
    }

    /// What the runtime keeps of a device besides its records: a record of its own.
    struct Times: Equatable {
        var firstFixTime: EventTime?
        var lastFixTime: EventTime?
        var lastFix: RegionFix?

        /// Compact JSON with sorted keys, written by hand as `ConditionRecord.encoded` is: a
        /// device's times change with every fix it sends.
        var encoded: [UInt8] {
            var w = JSONWriter(capacity: 160 + (lastFix?.source.utf8.count ?? 0))
            w.beginObject()
            if let firstFixTime { w.key("first_fix_time" as StaticString); w.int(firstFixTime.milliseconds) }
            if let f = lastFix {
                w.key("last_fix" as StaticString)
                w.beginObject()
                if let a = f.horizontalAccuracy { w.key("h_accuracy" as StaticString); w.exactDouble(a) }
                w.key("lat" as StaticString); w.exactDouble(f.coordinate.latitude)
                w.key("lon" as StaticString); w.exactDouble(f.coordinate.longitude)
                w.key("source" as StaticString); w.string(f.source)
                w.key("time" as StaticString); w.int(f.time.milliseconds)
                w.endObject()
            }
            if let lastFixTime { w.key("last_fix_time" as StaticString); w.int(lastFixTime.milliseconds) }
            w.endObject()
            return w.bytes
        }

        init(firstFixTime: EventTime?, lastFixTime: EventTime?, lastFix: RegionFix?) {
            self.firstFixTime = firstFixTime
            self.lastFixTime = lastFixTime
            self.lastFix = lastFix
        }

        init(json: JSONValue) {
            func time(_ v: JSONValue?) -> EventTime? { v?.doubleValue.flatMap { EventTime(jsonMilliseconds: $0) } }
            firstFixTime = time(json["first_fix_time"])
            lastFixTime = time(json["last_fix_time"])
            if let l = json["last_fix"], let source = l["source"]?.stringValue, let lat = l["lat"]?.doubleValue,
               let lon = l["lon"]?.doubleValue, let t = time(l["time"]) {
                lastFix = RegionFix(source: source, coordinate: Coordinate(latitude: lat, longitude: lon),
                                    horizontalAccuracy: l["h_accuracy"]?.doubleValue, time: t)
            }
        }
    }
}
