import Foundation
import LocusCore
@testable import LocusRegionPlugin
import LocusRegions
import LocusTestKit
import Testing

/// The region service across restarts through the runtime's state contract
/// (`KeyedStatefulService`): the state is committed after every message, as the runtime does
/// after every batch, and each "restart" builds a fresh service from config and gives it the
/// committed records, as the runtime does after a `kill -9`. (Skipping what was processed
/// before and publishing what was committed but not published are the runtime's part:
/// ServiceStateKillTests.)
@Suite struct RegionPersistenceTests {
    static func service(regions: [RegionCondition] = [RegionServiceTests.circle()],
                        configure: (inout RegionConfiguration) -> Void = { _ in }) throws -> RegionService {
        try RegionService(id: "fences", configuration: RegionConfiguration.with { $0.regions = regions; configure(&$0) })
    }

    @Test func theStateIsRecordsPerFactAndPersistFalseKeepsNone() throws {
        var store = CommittedState()
        var run = try store.start(try Self.service())
        try store.feed(&run, [LocationScene.fix(at: 0, north: 0)])
        #expect(store.records.keys.sorted() == ["device/", "fence/home", "record/.home", "service"])
        #expect(store.text("record/.home")?.contains(#""state":"satisfied""#) == true)
        #expect(!run.service.subscriptions.contains("region."), "no echo of its own events any more")
        #expect(ServiceStateTracker(for: try Self.service { $0.persist = false }) == nil)
        // A fix that changes no condition's record rewrites only the device's last fix and the time.
        let before = store.records
        try store.feed(&run, [LocationScene.fix(at: 1, north: 0)])
        #expect(store.records.keys.filter { store.records[$0] != before[$0] }.sorted() == ["device/", "service"])
    }

    @Test func stateSurvivesARestartAndOutputContinuesAsWithout() throws {
        let fixes = (0..<200).map { t in LocationScene.fix(at: Double(t), north: t < 100 ? 10 : 400) }
        var whole = ServiceRun(try Self.service())
        try whole.feed(fixes)
        var store = CommittedState()
        var first = try store.start(try Self.service())
        try store.feed(&first, Array(fixes[0..<110]))
        var second = try store.restart(try Self.service())
        try store.feed(&second, Array(fixes[110...]))
        #expect(whole.events.map(\.topic) == ["region.enter.home", "region.exit.home"])
        #expect((first.events + second.events).map { "\($0.topic)@\($0.seconds)" } == whole.events.map { "\($0.topic)@\($0.seconds)" })
        #expect(second.service.monitor.record("home")?.state == .unsatisfied)
    }

    @Test func aPendingTransitionSurvivesARestart() throws {
        var store = CommittedState()
        var first = try store.start(try Self.service())
        for t in 0..<30 { try store.feed(&first, [LocationScene.fix(at: Double(t), north: 10)]) }
        for t in 30..<40 { try store.feed(&first, [LocationScene.fix(at: Double(t), north: 400)]) }   // run started at 30
        #expect(first.events.map(\.topic) == ["region.enter.home"])
        var second = try store.restart(try Self.service())
        for t in 40..<60 { try store.feed(&second, [LocationScene.fix(at: Double(t), north: 400)]) }
        // The run's clock kept running from 29 s: the exit at 49 s, as without the restart.
        #expect(second.events.map { "\($0.topic)@\(Int($0.seconds))" } == ["region.exit.home@49"])
        #expect(second.all(RegionExit.self)[0].event.body.detectedAfterRestart == false)
        #expect(second.all(RegionExit.self)[0].event.body.since == LocationScene.time(30))
    }

    /// Locus is down for ten minutes and the device has left: the first fix after the gap
    /// confirms the exit, with `since` at that fix. The event is the one a replay without the
    /// restart gives (`detected_after_restart` stays false: the restart is invisible to the service).
    @Test func aTransitionDuringAGapIsTheOneAReplayGives() throws {
        var store = CommittedState()
        var first = try store.start(try Self.service())
        for t in 0..<60 { try store.feed(&first, [LocationScene.fix(at: Double(t), north: 10)]) }
        var second = try store.restart(try Self.service())
        for t in 660..<700 { try store.feed(&second, [LocationScene.fix(at: Double(t), north: 900)]) }
        #expect(second.events.map { "\($0.topic)@\(Int($0.seconds))" } == ["region.exit.home@660"])
        let exit = try #require(second.all(RegionExit.self).first?.event.body)
        #expect(exit.since == LocationScene.time(660) && !exit.detectedAfterRestart)
        var whole = ServiceRun(try Self.service())
        try whole.feed((0..<60).map { LocationScene.fix(at: Double($0), north: 10) } + (660..<700).map { LocationScene.fix(at: Double($0), north: 900) })
        #expect(whole.all(RegionExit.self).map(\.event.body) == [exit])
    }

    @Test func runtimeConditionsSurviveAndConfigWinsForItsIds() throws {
        var store = CommittedState()
        var first = try store.start(try Self.service(regions: []))
        for id in ["shop", "home"] {
            var output = ServiceOutput()
            _ = try first.service.handle(command: "region.add", arguments: .object(RegionCommandTests.circleArgs(id, north: 1000)), output: &output)
            try store.commit(&first)
        }
        try store.feed(&first, [LocationScene.fix(at: 0, north: 1000)])
        #expect(first.events.map(\.topic) == ["region.enter.home", "region.enter.shop"])
        #expect(store.records.keys.filter { $0.hasPrefix("condition/") }.sorted() == ["condition/home", "condition/shop"])
        // Config now defines "home" (elsewhere): its definition wins; "shop" is still there, still inside.
        var second = try store.restart(try Self.service(regions: [RegionServiceTests.circle("home")]))
        var output = ServiceOutput()
        let list = try second.service.handle(command: "region.list", arguments: .object([:]), output: &output)
        #expect(list["regions"] == .array([
            .object(["id": .string("home"), "state": .string("unknown"), "origin": .string("config")]),
            .object(["id": .string("shop"), "state": .string("satisfied"), "origin": .string("runtime")]),
        ]))
        try store.commit(&second)
        #expect(store.records["condition/home"] == nil, "the runtime definition config replaced is deleted")
        // Removing a runtime condition is committed too.
        _ = try second.service.handle(command: "region.remove", arguments: .object(["id": .string("shop")]), output: &output)
        try store.commit(&second)
        #expect(store.records["condition/shop"] == nil && store.records["record/.shop"] == nil && store.records["fence/shop"] == nil)
        let third = try store.restart(try Self.service(regions: [RegionServiceTests.circle("home")]))
        #expect(third.service.monitor.ids == ["home"])
    }

    /// With publish_conditions, subscribers are told each definition once: a restart with the
    /// same config announces nothing again, one with a changed config announces the change.
    @Test func definitionsAreAnnouncedOnceAcrossRestarts() throws {
        let publishing: (inout RegionConfiguration) -> Void = { $0.publishConditions = true }
        var store = CommittedState()
        var first = try store.start(try Self.service(configure: publishing))
        try store.feed(&first, [LocationScene.fix(at: 0, north: 900)])
        #expect(first.events.map(\.topic) == ["region.condition.home"])
        var second = try store.restart(try Self.service(configure: publishing))
        try store.feed(&second, [LocationScene.fix(at: 1, north: 900)])
        #expect(second.events.isEmpty)
        let park = try RegionCondition(id: "park", center: LocationScene.place(north: 500), radius: 80, origin: .config)
        var third = try store.restart(try Self.service(regions: [park], configure: publishing))
        try store.feed(&third, [LocationScene.fix(at: 2, north: 900)])
        #expect(third.events.map(\.topic) == ["region.condition.home", "region.condition.park"])
        #expect(third.all(RegionConditionEvent.self).map { $0.event.condition == nil } == [true, false], "home removed, park added")
    }

    /// Records that do not read (a damaged store, a definition an older version accepted) are
    /// dropped with an error logged and deleted at the next commit; the service starts from
    /// what remains, never traps.
    @Test func unreadableRecordsAreDroppedAndDeleted() throws {
        var store = CommittedState()
        var first = try store.start(try Self.service())
        try store.feed(&first, [LocationScene.fix(at: 0, north: 0)])
        var records = store.records
        records["record/.home"] = Array("{\"state\":".utf8)
        records["condition/broken"] = Array(#"{"id":"broken","radius":-5}"#.utf8)
        records["record/nobody.home"] = Array(#"{"state":"satisfied"}"#.utf8)
        // Found by the state fuzz target: a record filed under another key (it made the next
        // restart drop what this one committed), and a time past Int64 (a trap before).
        records["record/.elsewhere"] = store.records["record/.home"]
        records["device/"] = Array(#"{"last_fix_time":1e30}"#.utf8)
        // A runtime record under one key defining another id (config's "home") must not replace it.
        records["condition/other"] = Array(#"{"id":"home","geometry":{"type":"Point","coordinates":[14.36,45.78]},"radius":500}"#.utf8)
        var fresh: any ServicePlugin = try Self.service()
        var tracker = try #require(ServiceStateTracker(for: fresh))
        try tracker.restore(records, into: &fresh)
        let changes = try tracker.changes(in: &fresh)
        let deleted = Set(changes.filter { $0.value == nil }.map(\.key))
        #expect(deleted.isSuperset(of: ["condition/broken", "condition/other", "record/nobody.home", "record/.elsewhere"]), "\(deleted)")
        #expect(changes.contains { $0.key == "record/.home" }, "rewritten or deleted: \(changes.map(\.key))")
        let region = try #require(fresh as? RegionService)
        #expect(region.monitor.ids == ["home"] && region.monitor.record("home")?.state == .unknown)
        #expect(region.monitor.condition("home")?.origin == .config)
    }

    /// A config switched to `per_device: true`: the one device's records have no device to go
    /// to, so they are deleted, and each device starts from its first fix.
    @Test func switchingToPerDeviceDropsTheOneDevicesRecords() throws {
        var store = CommittedState()
        var single = try store.start(try Self.service())
        try store.feed(&single, [LocationScene.fix(at: 0, north: 0)])
        let setup = PluginSetup(id: "fences", kind: .service, configDirectory: "", endpoints: HubEndpoints(ingest: "", publish: "", control: ""),
                                logger: .init(label: "t"), perDevice: true)
        let perDevice = try RegionService(id: "fences", configuration: RegionConfiguration.with { $0.regions = [RegionServiceTests.circle()] },
                                          setup: setup)
        var run = try store.restart(perDevice)
        try store.commit(&run)
        #expect(store.records.keys.sorted() == ["fence/home", "service"], "\(store.records.keys.sorted())")
        #expect(run.service.monitor.deviceIDs.isEmpty)
    }
}
