import Foundation
import LocusCore
@testable import LocusRegionService
import LocusRegions
import Testing

/// The region service across restarts, with a real database file: each "restart" drops the
/// service without any shutdown (as kill -9 would) and builds a new one on the same file.
@Suite struct RegionPersistenceTests {
    static func setup(_ dir: String) -> PluginSetup {
        PluginSetup(id: "fences", kind: .service, configDirectory: dir, endpoints: HubEndpoints(ingest: "", publish: "", control: ""),
                    logger: .init(label: "t"), stateDirectory: dir)
    }

    static func service(_ dir: String, regions: [RegionCondition] = [RegionServiceTests.circle()]) throws -> ServiceRun<RegionService> {
        ServiceRun(try RegionService(id: "fences", configuration: RegionConfiguration.with { $0.regions = regions }, setup: setup(dir)))
    }

    static func temporaryDirectory() -> String {
        let dir = NSTemporaryDirectory() + "region-persist-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// Hands the service its own events back, as the runtime does from the hub (that acknowledges them).
    static func echo(_ run: inout ServiceRun<RegionService>) throws {
        let events = run.events
        for e in events {
            let envelope = Envelope(type: type(of: e.payload).eventType, version: 1, producer: "fences", seq: 1,
                                    time: LocationScene.time(e.seconds), payload: .typed(e.payload))
            try run.service.acknowledge(BusMessage(topic: e.topic, envelope: envelope))
        }
    }

    @Test func databaseFileIsCreatedInTheStateDirectory() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var run = try Self.service(dir)
        try run.feed(LocationScene.fix(at: 0, north: 0))
        #expect(FileManager.default.fileExists(atPath: dir + "/region-fences.sqlite"))
        #expect(run.service.acknowledgementTopics == ["region."])
        #expect(!run.service.subscriptions.contains("region."))
    }

    @Test func stateSurvivesARestartAndNothingIsPublishedTwice() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let fixes = (0..<200).map { t in LocationScene.fix(at: Double(t), north: t < 100 ? 10 : 400) }
        var first = try Self.service(dir)
        try first.feed(Array(fixes[0..<150]))
        try Self.echo(&first)
        #expect(first.events.map(\.topic) == ["region.enter.home", "region.exit.home"])
        // Restart, and replay everything from the start: what was processed is skipped.
        var second = try Self.service(dir)
        try second.feed(fixes)
        #expect(second.events.isEmpty)
        // Up to the last change (the exit at 119 s); the fixes after it are processed again, to the same effect.
        #expect(second.service.counters.skippedAfterRestart == 120)
        #expect(second.service.monitor.record("home")?.state == .unsatisfied)
    }

    @Test func aPendingTransitionSurvivesARestart() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var first = try Self.service(dir)
        for t in 0..<30 { try first.feed(LocationScene.fix(at: Double(t), north: 10)) }
        for t in 30..<40 { try first.feed(LocationScene.fix(at: Double(t), north: 400)) }   // run started at 30
        try Self.echo(&first)
        #expect(first.events.map(\.topic) == ["region.enter.home"])
        var second = try Self.service(dir)
        for t in 40..<60 { try second.feed(LocationScene.fix(at: Double(t), north: 400)) }
        // The run's clock kept running from 29 s: the exit at 49 s, as without the restart.
        #expect(second.events.map { "\($0.topic)@\(Int($0.seconds))" } == ["region.exit.home@49"])
        #expect(second.all(RegionExit.self)[0].event.body.detectedAfterRestart == false)
        #expect(second.all(RegionExit.self)[0].event.body.since == LocationScene.time(30))
    }

    @Test func aTransitionWhileDownIsPublishedOnceMarked() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var first = try Self.service(dir)
        for t in 0..<60 { try first.feed(LocationScene.fix(at: Double(t), north: 10)) }
        try Self.echo(&first)
        // Locus is down for ten minutes; the device has left.
        var second = try Self.service(dir)
        for t in 660..<700 { try second.feed(LocationScene.fix(at: Double(t), north: 900)) }
        #expect(second.events.map { "\($0.topic)@\(Int($0.seconds))" } == ["region.exit.home@660"])
        #expect(second.all(RegionExit.self)[0].event.body.detectedAfterRestart)
    }

    @Test func unacknowledgedEventsArePublishedAgainAfterACrash() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var first = try Self.service(dir)
        try first.feed(LocationScene.fix(at: 0, north: 0))
        #expect(first.events.map(\.topic) == ["region.enter.home"])
        // Crash before the event came back through the hub: the next instance publishes it again, first.
        var second = try Self.service(dir)
        try second.feed(LocationScene.fix(at: 1, north: 0))
        #expect(second.events.map { "\($0.topic)@\(Int($0.seconds))" } == ["region.enter.home@0"])
        try Self.echo(&second)
        var third = try Self.service(dir)
        try third.feed(LocationScene.fix(at: 2, north: 0))
        #expect(third.events.isEmpty)
    }

    @Test func runtimeConditionsSurviveAndConfigWinsForItsIds() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var first = try Self.service(dir, regions: [])
        for id in ["shop", "home"] {
            var output = ServiceOutput()
            _ = try first.service.handle(command: "region.add", arguments: .object(RegionCommandTests.circleArgs(id, north: 1000)), output: &output)
        }
        try first.feed(LocationScene.fix(at: 0, north: 1000))
        try Self.echo(&first)
        #expect(first.events.map(\.topic) == ["region.enter.home", "region.enter.shop"])
        // Config now defines "home" (elsewhere): its definition wins; "shop" is still there, still inside.
        var second = try Self.service(dir, regions: [RegionServiceTests.circle("home")])
        var output = ServiceOutput()
        let list = try second.service.handle(command: "region.list", arguments: .object([:]), output: &output)
        #expect(list["regions"] == .array([
            .object(["id": .string("home"), "state": .string("unknown"), "origin": .string("config")]),
            .object(["id": .string("shop"), "state": .string("satisfied"), "origin": .string("runtime")]),
        ]))
        // Removing a runtime condition is stored too.
        _ = try second.service.handle(command: "region.remove", arguments: .object(["id": .string("shop")]), output: &output)
        var third = try Self.service(dir, regions: [RegionServiceTests.circle("home")])
        _ = try third.service.handle(command: "region.list", arguments: .object([:]), output: &output)
        #expect(third.service.monitor.ids == ["home"])
    }
}
