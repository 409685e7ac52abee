import Foundation
import LocusCore
@testable import LocusRuntime
@testable import LocusStore
import LocusBeaconPlugin
import LocusRegionPlugin
import Logging
import Testing

/// The keeper's restart: what a service could not use of its committed records is deleted
/// before the first message and counted (`state_records_dropped`), never lost silently.
@Suite struct ServiceStateKeeperTests {
    /// Keeps numbers; a record that is not a number is damage: dropped, and deleted by the next commit.
    struct Numbers: KeyedStatefulService {
        var subscriptions: [String] { ["x."] }
        var produces: [String] { [] }
        var values: [String: Int] = [:]
        var dropped: [String] = []

        mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws {}

        mutating func takeStateChanges() throws -> [(key: String, value: [UInt8]?)] {
            defer { dropped = [] }
            return dropped.map { ($0, nil) }
        }

        mutating func restoreState(_ records: [String: [UInt8]]) throws {
            for (key, bytes) in records {
                if let n = Int(String(decoding: bytes, as: UTF8.self)) { values[key] = n } else { dropped.append(key) }
            }
        }
    }

    @Test func recordsARestartCannotUseAreDeletedAtOnceAndCounted() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try ServiceStateStore(path: dir + "/numbers.sqlite", kind: "service")
        var changes = StateChanges()
        changes.put(ServiceStateKeeper.stateCollection, key: "a", json: "1")
        changes.put(ServiceStateKeeper.stateCollection, key: "b", json: "\"two\"")
        _ = try store.commit(changes)

        let keeper = ServiceStateKeeper(id: "numbers", store: store, publisher: EventPublisher(producer: "numbers", outlet: MemoryOutlet()),
                                        journal: nil, logger: Logger(label: "t"))
        var service: any ServicePlugin = Numbers()
        try keeper.start(&service)
        #expect((service as? Numbers)?.values == ["a": 1])
        #expect(keeper.counters.reported["state_records_dropped"] == 1)
        #expect(try store.textRecords(in: ServiceStateKeeper.stateCollection) == ["a": "1"])

        // The next start finds nothing more to drop.
        let again = ServiceStateKeeper(id: "numbers", store: store, publisher: EventPublisher(producer: "numbers", outlet: MemoryOutlet()),
                                       journal: nil, logger: Logger(label: "t"))
        var fresh: any ServicePlugin = Numbers()
        try again.start(&fresh)
        #expect(again.counters.reported["state_records_dropped"] == 0)
    }

    /// A batch's events are committed as one outbox row; after a restart they are published in
    /// order. A row that does not read back (a damaged store) is counted, not published, and
    /// acknowledged with the rest so the next start does not meet it again.
    @Test func eventsCommittedBeforeARestartArePublishedAndAnUnreadableRowIsCounted() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try ServiceStateStore(path: dir + "/numbers.sqlite", kind: "service")
        var batch = StateChanges()
        batch.append(envelopes: [("x.a", Array("1".utf8)), ("x.b", Array("2".utf8))], time: EventTime(milliseconds: 1))
        try store.commit(batch)
        try store.executeForTesting("INSERT INTO outbox (topic, time_ms, event_type, payload) VALUES ('', 1, 'locus.envelopes', '3 99\nx.c3')")
        var later = StateChanges()
        later.append(envelopes: [("x.d", Array("4".utf8))], time: EventTime(milliseconds: 2))
        try store.commit(later)

        let outlet = MemoryOutlet()
        let keeper = ServiceStateKeeper(id: "numbers", store: store, publisher: EventPublisher(producer: "numbers", outlet: outlet),
                                        journal: nil, logger: Logger(label: "t"))
        var service: any ServicePlugin = Numbers()
        try keeper.start(&service)
        #expect(outlet.take().map { $0.topic + "=" + String(decoding: $0.body, as: UTF8.self) } == ["x.a=1", "x.b=2", "x.d=4"])
        #expect(keeper.counters.reported["events_republished"] == 3)
        #expect(keeper.counters.reported["outbox_rows_unreadable"] == 1)
        // Published means handed to the outlet, not yet journaled: the rows stay until a commit
        // `acknowledgeAfter` later, so a kill in the next moment publishes them again (they were
        // acknowledged at once before, and a kill then lost them). The unreadable row is gone.
        let pending = try store.pendingEnvelopes()
        #expect(pending.envelopes.count == 3 && pending.unreadableIDs.isEmpty)
        let again = ServiceStateKeeper(id: "numbers", store: store, publisher: EventPublisher(producer: "numbers", outlet: outlet),
                                       journal: nil, logger: Logger(label: "t"))
        var restarted: any ServicePlugin = Numbers()
        try again.start(&restarted)
        #expect(outlet.take().count == 3)
        #expect(again.counters.reported["outbox_rows_unreadable"] == 0)
    }

    /// A commit that fails loses the inputs of its batch and of the batches handed over behind
    /// it (the instance restarts from the last commit, the feed goes on): counted at the restart
    /// in `inputs_lost_to_failed_commit`, never silently.
    @Test func inputsOfBatchesWhoseCommitFailedAreCounted() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try ServiceStateStore(path: dir + "/numbers.sqlite", kind: "service")
        let keeper = Self.keeper(store)
        var service: any ServicePlugin = Numbers()
        try keeper.start(&service)
        func batch(_ n: Int) -> [ServiceOutput.Event] {
            var output = ServiceOutput()
            output.emit(CommandTestPlugins.CounterEvent(kind: "seen", detail: "\(n)"), topic: "x.seen", time: EventTime(milliseconds: Int64(n)))
            return output.events
        }
        try keeper.commitAndPublishInBackground(&service, events: batch(1), inputs: 3) {}
        try keeper.finishCommits()
        struct DiskFull: Error {}
        store.beforeApplyingChange = { _ in throw DiskFull() }
        try keeper.commitAndPublishInBackground(&service, events: batch(2), inputs: 5) {}
        // Behind the failing one: dropped by the committer, or refused at once with its failure.
        try? keeper.commitAndPublishInBackground(&service, events: batch(3), inputs: 2) {}
        #expect(throws: StateStoreError.self) { try keeper.finishCommits() }
        #expect(keeper.counters.reported["inputs_lost_to_failed_commit"] == 7)
        // Issue 49 item 8: the failed transaction and the events of both batches (never
        // published, so never journaled) are counted too.
        #expect(keeper.counters.reported["commits_failed"] == 1)
        #expect(keeper.counters.reported["events_lost_to_failed_commit"] == 2)

        store.beforeApplyingChange = nil
        var fresh: any ServicePlugin = Numbers()
        try keeper.start(&fresh)  // the restart counts nothing twice
        try keeper.commitAndPublishInBackground(&fresh, events: batch(4), inputs: 4) {}
        try keeper.finishCommits()
        #expect(keeper.counters.reported["inputs_lost_to_failed_commit"] == 7)
        #expect(keeper.counters.reported["events_lost_to_failed_commit"] == 2)
        #expect(keeper.counters.reported["commits_failed"] == 1)
        #expect(keeper.counters.reported["state_commits"] == 2)
    }

    /// Numbers that an earlier version kept in a file of its own, collection `condition`.
    struct ImportingNumbers: ImportsEarlierStateStore {
        var inner = Numbers()
        var earlierStateStore: EarlierStateStore?
        var subscriptions: [String] { ["x."] }
        var produces: [String] { [] }
        mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws {}
        mutating func takeStateChanges() throws -> [(key: String, value: [UInt8]?)] { try inner.takeStateChanges() }
        mutating func restoreState(_ records: [String: [UInt8]]) throws { try inner.restoreState(records) }
    }

    static func temporaryDirectory() throws -> String {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("keeper-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func keeper(_ store: ServiceStateStore, id: String = "numbers") -> ServiceStateKeeper {
        ServiceStateKeeper(id: id, store: store, publisher: EventPublisher(producer: id, outlet: MemoryOutlet()),
                           journal: nil, logger: Logger(label: "t"))
    }

    /// An earlier version's own store of a `kind` service, holding `conditions` added at runtime.
    static func writeEarlierStore(_ path: String, kind: String, conditions: [String: JSONValue]) throws {
        let old = try ServiceStateStore(path: path, kind: kind)
        var changes = StateChanges()
        for (id, definition) in conditions { changes.put("condition", key: id, value: definition) }
        _ = try old.commit(changes)
    }

    static func setup(_ id: String, stateDirectory: String) -> PluginSetup {
        PluginSetup(id: id, kind: .service, configDirectory: stateDirectory, endpoints: HubEndpoints(ingest: "", publish: "", control: ""),
                    logger: .init(label: "t"), stateDirectory: stateDirectory)
    }

    /// The first start copies the earlier file's rows (prefixed) into the store and the
    /// service; later starts do not copy them again, even once the service deleted them.
    @Test func anEarlierStoreIsImportedOnceAtTheFirstStart() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        do {
            let old = try ServiceStateStore(path: dir + "/numbers-old.sqlite", kind: "numbers")
            var changes = StateChanges()
            changes.put("condition", key: "a", json: "1")
            changes.put("condition", key: "b", json: "2")
            changes.put("state", key: "a", json: "99")  // not named: not imported
            _ = try old.commit(changes)
        }
        let earlier = EarlierStateStore(path: dir + "/numbers-old.sqlite", kind: "numbers", collections: ["condition": "condition/"])
        let store = try ServiceStateStore(path: dir + "/numbers.sqlite", kind: "service")
        let keeper = Self.keeper(store)
        var service: any ServicePlugin = ImportingNumbers(earlierStateStore: earlier)
        try keeper.start(&service)
        #expect((service as? ImportingNumbers)?.inner.values == ["condition/a": 1, "condition/b": 2])
        #expect(keeper.counters.reported["state_records_imported"] == 2)
        #expect(try store.textRecords(in: ServiceStateKeeper.stateCollection) == ["condition/a": "1", "condition/b": "2"])

        // The service deletes both (as `locus ctl … remove` would); the next start imports nothing.
        var deletions = StateChanges()
        deletions.delete(ServiceStateKeeper.stateCollection, key: "condition/a")
        deletions.delete(ServiceStateKeeper.stateCollection, key: "condition/b")
        deletions.setMeta(ServiceStateKeeper.seqMeta, "3")
        _ = try store.commit(deletions)
        let again = Self.keeper(store)
        var fresh: any ServicePlugin = ImportingNumbers(earlierStateStore: earlier)
        try again.start(&fresh)
        #expect((fresh as? ImportingNumbers)?.inner.values == [:])
        #expect(again.counters.reported["state_records_imported"] == 0)
    }

    /// A region service of an earlier version kept the fences added with `locus ctl region add`
    /// in `<state_directory>/region-<id>.sqlite` (collection `condition`, one definition per id):
    /// after the upgrade they are still there, as runtime conditions. A damaged old file is
    /// reported and skipped: the service starts without it.
    @Test func aRegionServicesRuntimeFencesSurviveTheUpgrade() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let added = try RegionCondition(id: "added", center: Coordinate(latitude: 52.52, longitude: 13.405), radius: 80, origin: .runtime)
        try Self.writeEarlierStore(dir + "/region-fences.sqlite", kind: "region", conditions: ["added": added.definition])
        let setup = Self.setup("fences", stateDirectory: dir)
        let configured = try RegionCondition(id: "home", center: Coordinate(latitude: 52.5, longitude: 13.4), radius: 100, origin: .config)
        func region() throws -> any ServicePlugin {
            try RegionService(id: "fences", configuration: RegionConfiguration.with { $0.regions = [configured] }, setup: setup)
        }
        try FileManager.default.createDirectory(atPath: dir + "/services", withIntermediateDirectories: true)
        let store = try ServiceStateStore(path: dir + "/services/fences.sqlite", kind: "service")
        var service = try region()
        try Self.keeper(store, id: "fences").start(&service)
        let upgraded = try #require(service as? RegionService)
        #expect(upgraded.condition("added")?.origin == .runtime)
        #expect(upgraded.condition("added")?.fingerprint == added.fingerprint)
        #expect(upgraded.condition("home")?.origin == .config)

        // The same with a damaged old file: no import, no failure.
        let other = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: other) }
        try Data("not a database".utf8).write(to: URL(fileURLWithPath: other + "/region-fences.sqlite"))
        var damagedSetup = setup
        damagedSetup.stateDirectory = other
        var plain: any ServicePlugin = try RegionService(id: "fences", configuration: RegionConfiguration.with { $0.regions = [configured] },
                                                          setup: damagedSetup)
        let fresh = try ServiceStateStore(path: other + "/fences.sqlite", kind: "service")
        let keeper = Self.keeper(fresh, id: "fences")
        try keeper.start(&plain)
        #expect((plain as? RegionService)?.condition("added") == nil)
        #expect(keeper.counters.reported["state_records_imported"] == 0)
    }

    /// The earlier region store held the conditions' states too (`state` rows by condition with
    /// one device; per device `device_state` rows by `<device>/<condition>` and `device` rows of
    /// fix times). Without them a device that was inside a fence would start undecided after the
    /// upgrade, and leaving the fence then would publish no `region.exit` (a first decision is
    /// silent). Imported at the first start and kept in the current form: the start after it
    /// still knows them.
    @Test(arguments: [false, true])
    func aRegionServicesStatesSurviveTheUpgrade(perDevice: Bool) throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let home = try RegionCondition(id: "home", center: Coordinate(latitude: 52.5, longitude: 13.4), radius: 100, origin: .config)
        // A second fence, with a separator of its own in its id.
        let work = try RegionCondition(id: "work-north", center: Coordinate(latitude: 52.6, longitude: 13.3), radius: 100, origin: .config)
        let entered: Int64 = 1_715_932_800_000
        // Anna was inside home and outside work.
        func record(_ c: RegionCondition, inside: Bool) -> JSONValue {
            .object(["state": .string(inside ? "satisfied" : "unsatisfied"), "fingerprint": .string(c.fingerprint), "since": .number(Double(entered)),
                     "last_event_type": .string(inside ? "region.enter" : "region.exit"), "last_event_time": .number(Double(entered))])
        }
        do {
            let old = try ServiceStateStore(path: dir + "/region-fences.sqlite", kind: "region")
            var changes = StateChanges()
            if perDevice {
                for c in [home, work] { changes.put("state", key: c.id, value: .object(["state": .string("unknown"), "fingerprint": .string(c.fingerprint)])) }
                changes.put("device_state", key: "anna/home", value: record(home, inside: true))
                changes.put("device_state", key: "anna/work-north", value: record(work, inside: false))
                changes.put("device", key: "anna", value: .object(["first_fix_time": .number(Double(entered)), "last_fix_time": .number(Double(entered))]))
            } else {
                changes.put("state", key: "home", value: record(home, inside: true))
                changes.put("state", key: "work-north", value: record(work, inside: false))
            }
            _ = try old.commit(changes)
        }
        var setup = Self.setup("fences", stateDirectory: dir)
        setup.perDevice = perDevice
        func region() throws -> any ServicePlugin {
            try RegionService(id: "fences", configuration: RegionConfiguration.with { $0.regions = [home, work] }, setup: setup)
        }
        func fix(_ device: String, in c: RegionCondition, seconds: Int64) -> BusMessage {
            let at = c.id == "home" ? Coordinate(latitude: 52.5, longitude: 13.4) : Coordinate(latitude: 52.6, longitude: 13.3)
            let f = Fix(source: device, mode: .threeD, latitude: at.latitude, longitude: at.longitude, horizontalAccuracy: 5)
            return BusMessage(topic: "obs.fix.\(device)", envelope: Envelope(producer: "phones", seq: 1, time: EventTime(milliseconds: entered + seconds * 1000), payload: f))
        }
        func transitions(_ service: inout any ServicePlugin, _ messages: [BusMessage]) throws -> [String] {
            var topics: [String] = []
            for m in messages {
                var output = ServiceOutput()
                try service.receive(m, output: &output)
                topics += output.events.map(\.topic).filter { $0.hasPrefix("region.enter.") || $0.hasPrefix("region.exit.") }
            }
            return topics
        }
        try FileManager.default.createDirectory(atPath: dir + "/services", withIntermediateDirectories: true)
        let store = try ServiceStateStore(path: dir + "/services/fences.sqlite", kind: "service")
        var upgraded = try region()
        let keeper = Self.keeper(store, id: "fences")
        try keeper.start(&upgraded)
        #expect(try store.textRecords(in: ServiceStateKeeper.stateCollection).keys.filter { $0.hasPrefix("earlier/") } == [])
        #expect(keeper.counters.recordsDropped == 0)

        // After the upgrade (from the store as the first start left it): Anna still at home
        // is told nothing; Anna driving to work leaves home and enters work.
        let atHome = [fix("anna", in: home, seconds: 60), fix("anna", in: home, seconds: 120)]
        let drive = (1...4).map { fix("anna", in: work, seconds: Int64($0) * 60) }
        let suffix = perDevice ? ".anna" : ""
        func afterUpgrade(_ messages: [BusMessage]) throws -> [String] {
            var restarted = try region()
            try Self.keeper(store, id: "fences").start(&restarted)
            return try transitions(&restarted, messages)
        }
        let stayed = try afterUpgrade(atHome)
        #expect(stayed == [])
        let drove = try afterUpgrade(drive)
        #expect(drove == ["region.exit.home" + suffix, "region.enter.work-north" + suffix])

        // Without the earlier states: an enter she was already told of, and no exit.
        let elsewhere = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: elsewhere) }
        var freshSetup = setup
        freshSetup.stateDirectory = elsewhere
        func withoutImport(_ messages: [BusMessage]) throws -> [String] {
            var fresh: any ServicePlugin = try RegionService(id: "fences", configuration: RegionConfiguration.with { $0.regions = [home, work] },
                                                              setup: freshSetup)
            try Self.keeper(try ServiceStateStore.inMemory(kind: "service"), id: "fences").start(&fresh)
            return try transitions(&fresh, messages)
        }
        let staleEnter = try withoutImport(atHome)
        #expect(staleEnter == ["region.enter.home" + suffix])
        let lostExit = try withoutImport(drive)
        #expect(lostExit == ["region.enter.work-north" + suffix])
    }

    /// The same for a beacon service's conditions added at runtime (`beacon-<id>.sqlite`).
    @Test func aBeaconServicesRuntimeConditionsSurviveTheUpgrade() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let added = try BeaconCondition(definition: .object(["id": .string("lab"), "uuid": .string("2f234454-cf6d-4a0f-adf2-f4911ba9ffa6"), "major": .number(3838)]),
                                        origin: .runtime)
        try Self.writeEarlierStore(dir + "/beacon-tags.sqlite", kind: "beacon", conditions: ["lab": added.definition])
        let setup = Self.setup("tags", stateDirectory: dir)
        var service: any ServicePlugin = try BeaconService(id: "tags", configuration: BeaconConfiguration(), setup: setup)
        let store = try ServiceStateStore(path: dir + "/tags.sqlite", kind: "service")
        let keeper = Self.keeper(store, id: "tags")
        try keeper.start(&service)
        #expect((service as? BeaconService)?.conditionIDs == ["lab"])
        #expect(keeper.counters.reported["state_records_imported"] == 1)
    }

    /// The earlier beacon store held each condition's record (`state` rows; it had one device):
    /// a beacon in range before the upgrade that is not heard again is reported gone after the
    /// exit timeout. Without the record the condition starts undecided and becomes unsatisfied
    /// silently: no `beacon.exit`.
    @Test func aBeaconServicesStatesSurviveTheUpgrade() throws {
        let dir = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let lab = try BeaconCondition(definition: .object(["id": .string("lab"), "uuid": .string("2f234454-cf6d-4a0f-adf2-f4911ba9ffa6"), "major": .number(3838)]),
                                      origin: .runtime)
        let heard: Int64 = 1_715_932_800_000
        do {
            let old = try ServiceStateStore(path: dir + "/beacon-tags.sqlite", kind: "beacon")
            var changes = StateChanges()
            changes.put("condition", key: "lab", value: lab.definition)
            changes.put("state", key: "lab", value: .object(["state": .string("satisfied"), "fingerprint": .string(lab.fingerprint),
                                                              "since": .number(Double(heard)), "last_heard": .number(Double(heard)),
                                                              "last_event_type": .string("beacon.enter"), "last_event_time": .number(Double(heard))]))
            _ = try old.commit(changes)
        }
        let ticks = [10, 20, 40].map { seconds in
            BusMessage(topic: "clock.tick", envelope: Envelope(producer: "clock", seq: UInt64(seconds), time: EventTime(milliseconds: heard + Int64(seconds) * 1000),
                                                              payload: ClockTick(basis: .recorded, interval: 1)))
        }
        func events(_ setup: PluginSetup, store: ServiceStateStore) throws -> [String] {
            var service: any ServicePlugin = try BeaconService(id: "tags", configuration: BeaconConfiguration(), setup: setup)
            try Self.keeper(store, id: "tags").start(&service)
            var topics: [String] = []
            for m in ticks {
                var output = ServiceOutput()
                try service.receive(m, output: &output)
                topics += output.events.map(\.topic).filter { $0.hasPrefix("beacon.enter.") || $0.hasPrefix("beacon.exit.") }
            }
            return topics
        }
        let store = try ServiceStateStore(path: dir + "/tags.sqlite", kind: "service")
        let upgraded = try events(Self.setup("tags", stateDirectory: dir), store: store)
        #expect(upgraded == ["beacon.exit.lab"])
        #expect(try store.textRecords(in: ServiceStateKeeper.stateCollection).keys.filter { $0.hasPrefix("earlier/") } == [])
        // The next start has the record in the current form (the events above were not committed).
        let restarted = try events(Self.setup("tags", stateDirectory: dir), store: store)
        #expect(restarted == ["beacon.exit.lab"])

        // The earlier file with its condition only: the condition comes back undecided.
        let other = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: other) }
        try Self.writeEarlierStore(other + "/beacon-tags.sqlite", kind: "beacon", conditions: ["lab": lab.definition])
        let withoutRecord = try events(Self.setup("tags", stateDirectory: other), store: try ServiceStateStore(path: other + "/tags.sqlite", kind: "service"))
        #expect(withoutRecord == [])
    }
}
