import LocusBeaconPlugin
import LocusCore
import LocusRegionPlugin
import LocusRuntime
import LocusStore

/// libFuzzer's per-input callback: the input as the records of a service state store (one per
/// line, `key<TAB>value`; docs/writing-plugins.md "State"), given to a fresh region service as
/// the runtime gives them after a restart, once with one device and once `per_device`.
/// Invariants: reading never traps; whatever does not read is dropped and deleted, so the
/// records as the service then commits them read back into the same conditions, and a second
/// restore from them finds nothing more to delete. Then the same for a beacon service, with each
/// value also as each kind of beacon record (a device's state, a condition, the service).
/// Then the records as the rows of the keeper's position log (`LoggedTextMap`): reading never
/// traps, and after the next commit (which compacts away what did not read) the log reads back
/// as the same map with nothing damaged. Last, the whole input as the text of an outbox row of
/// envelopes (`EnvelopeBatch`): reading never traps, and what reads, written again, reads back
/// the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    var records: [String: [UInt8]] = [:]
    for line in UnsafeBufferPointer(start: data, count: size).split(separator: 10) {
        guard let tab = line.firstIndex(of: 9) else { continue }
        records[String(decoding: line[..<tab], as: UTF8.self)] = Array(line[(tab + 1)...])
    }
    for perDevice in [false, true] {
        var committed = records
        let first = restore(&committed, perDevice: perDevice)
        var again = committed
        let second = restore(&again, perDevice: perDevice)
        precondition(first.ids == second.ids, "invariant broken: the committed records read back as other conditions")
        precondition(second.deleted.isEmpty, "invariant broken: records committed after a restore were dropped by the next: \(second.deleted)")
    }
    // The same records, and each value as every kind of beacon record, to a beacon service
    // with one device and per device: the same invariants.
    var beaconRecords = records
    for value in records.values.prefix(8) {
        for key in ["device/", "device/gw1", "condition/lab", "service"] { beaconRecords[key] = value }
    }
    for perDevice in [false, true] {
        var committed = beaconRecords
        let first = restoreBeacon(&committed, perDevice: perDevice)
        var again = committed
        let second = restoreBeacon(&again, perDevice: perDevice)
        precondition(first.ids == second.ids, "invariant broken: the committed beacon records read back as other conditions")
        precondition(second.deleted.isEmpty, "invariant broken: beacon records committed after a restore were dropped by the next: \(second.deleted)")
    }
    readLog(records)
    let row = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    if let envelopes = EnvelopeBatch.envelopes(in: row) {
        let again = EnvelopeBatch.envelopes(in: EnvelopeBatch.text(envelopes.map { ($0.topic, Array($0.body.utf8)) }))
        precondition(again.map { $0.map { $0.topic + "\u{0}" + $0.body } } == envelopes.map { $0.topic + "\u{0}" + $0.body },
                     "invariant broken: an outbox row written again reads back as other envelopes")
    }
    return 0
}

/// A fresh region service given `records` (config: one circle, `home`); see `restoreInto`.
func restore(_ records: inout [String: [UInt8]], perDevice: Bool) -> (ids: [String], deleted: [String]) {
    let home = try! RegionCondition(id: "home", center: Coordinate(latitude: 45.77, longitude: 14.35), radius: 100, origin: .config)
    return restoreInto(&records, describe: { ($0 as? RegionService)?.conditionIDs ?? [] }) {
        try RegionService(id: "fences", configuration: RegionConfiguration.with { $0.regions = [home] }, setup: setup("fences", perDevice))
    }
}

/// A fresh beacon service given `records` (config: one condition, `site`); see `restoreInto`.
func restoreBeacon(_ records: inout [String: [UInt8]], perDevice: Bool) -> (ids: [String], deleted: [String]) {
    let site = try! BeaconCondition(definition: .object(["id": .string("site"), "uuid": .string("e2c56db5-dffb-48d2-b060-d0f5a71096e0")]),
                                    origin: .config)
    return restoreInto(&records, describe: { service in
        let b = service as? BeaconService
        return (b?.conditionIDs ?? []) + (b?.deviceIDs ?? []).map { "device " + $0 }
    }) {
        try BeaconService(id: "beacons", configuration: BeaconConfiguration.with { $0.conditions = [site] }, setup: setup("beacons", perDevice))
    }
}

func setup(_ id: String, _ perDevice: Bool) -> PluginSetup {
    PluginSetup(id: id, kind: .service, configDirectory: "", endpoints: HubEndpoints(ingest: "", publish: "", control: ""),
                logger: .init(label: "fuzz"), perDevice: perDevice)
}

/// A fresh service from `make` given `records`, as the runtime restores it after a restart;
/// applies what it commits right after (deletions and rewrites) to `records`. Returns what
/// `describe` says of it (its conditions, devices) and the keys it deleted.
func restoreInto(_ records: inout [String: [UInt8]], describe: (any ServicePlugin) -> [String],
                 make: () throws -> any ServicePlugin) -> (ids: [String], deleted: [String]) {
    guard var any = try? make(), var tracker = ServiceStateTracker(for: any) else {
        preconditionFailure("invariant broken: the service did not start")
    }
    do {
        try tracker.restore(records, into: &any)
    } catch {
        // A store that does not read starts the service from empty state (the keeper logs it).
        records = [:]
        return ([], [])
    }
    var deleted: [String] = []
    for change in (try? tracker.changes(in: &any)) ?? [] {
        if change.value == nil, records[change.key] != nil { deleted.append(change.key) }
        records[change.key] = change.value
    }
    return (describe(any), deleted.sorted())
}

/// One store for every input (a new SQLite database per input made the target ten times slower).
nonisolated(unsafe) let logStore = try! ServiceStateStore.inMemory(kind: "service")

/// `records` as the rows of a position log, and half of them as rows of its older form.
func readLog(_ records: [String: [UInt8]]) {
    let store = logStore
    var rows = StateChanges()
    rows.deleteAll(in: "log")
    rows.deleteAll(in: "old")
    for (n, (key, value)) in records.sorted(by: { $0.key < $1.key }).enumerated() {
        rows.put(n % 2 == 0 ? "log" : "old", key: key, json: String(decoding: value, as: UTF8.self))
    }
    try! store.commit(rows)
    var map = LoggedTextMap(collection: "log", legacyCollection: "old")
    _ = try! map.load(from: store)
    var next = StateChanges()
    map.commit([("fuzz", "1")], into: &next)
    try! store.commit(next)
    var again = LoggedTextMap(collection: "log", legacyCollection: "old")
    let damaged = try! again.load(from: store)
    precondition(damaged == 0, "invariant broken: the log's next commit kept \(damaged) rows that do not read")
    precondition(again.values == map.values, "invariant broken: the log read back as another map")
}
