import Foundation
import LocusCore
@testable import LocusBeaconService
import Testing

/// The beacon service across restarts, with a real database file: each "restart" drops the
/// service without any shutdown (as kill -9 would) and builds a new one on the same file.
@Suite struct BeaconPersistenceTests {
    typealias S = BeaconScene

    static func setup(_ dir: String) -> PluginSetup {
        PluginSetup(id: "beacons", kind: .service, configDirectory: dir, endpoints: HubEndpoints(ingest: "", publish: "", control: ""),
                    logger: .init(label: "t"), stateDirectory: dir)
    }

    static func temporaryDirectory() -> String {
        let dir = NSTemporaryDirectory() + "beacon-persist-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    static func service(_ dir: String, _ conditions: [BeaconCondition]? = nil) throws -> ServiceRun<BeaconService> {
        ServiceRun(try BeaconService(id: "beacons", configuration: try BeaconConfiguration.with { $0.conditions = try conditions ?? [BeaconServiceTests.wildcard()] },
                                     setup: Self.setup(dir)))
    }

    /// Hands the service its own events back, as the runtime does from the hub (that acknowledges them).
    static func echo(_ run: inout ServiceRun<BeaconService>) throws {
        for e in run.events where run.service.acknowledgementTopics.contains(where: e.topic.hasPrefix) {
            let envelope = Envelope(type: type(of: e.payload).eventType, version: 1, producer: "beacons", seq: 1,
                                    time: LocationScene.time(e.seconds), payload: .typed(e.payload))
            try run.service.acknowledge(BusMessage(topic: e.topic, envelope: envelope))
        }
    }

    static func ads(_ seconds: ClosedRange<Int>, minor: Int = 4949) -> [BusMessage] {
        seconds.map { S.ad(S.iBeacon(minor: minor), at: Double($0)) }
    }

    @Test func stateAndRefinementSurviveAndNothingIsPublishedTwice() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var first = try Self.service(dir)
        try S.play(&first, ads: Self.ads(0...5, minor: 7), ticks: 0...5)
        try Self.echo(&first)
        #expect(FileManager.default.fileExists(atPath: dir + "/beacon-beacons.sqlite"))
        #expect(first.service.acknowledgementTopics.contains("beacon.enter.") && !first.service.acknowledgementTopics.contains("beacon.range."))
        #expect(!first.service.subscriptions.contains(where: { $0.hasPrefix("beacon.") }))
        #expect(first.events.map(\.topic) == ["beacon.enter.site"])
        // Restart, the input played again from the start: what was processed is skipped, and
        // the beacon still heard keeps the condition satisfied.
        var second = try Self.service(dir)
        try S.play(&second, ads: Self.ads(0...20, minor: 7), ticks: 0...20)
        #expect(second.events.isEmpty)
        #expect(second.service.counters.skippedAfterRestart > 0)
        #expect(second.service.monitor.record("site")?.state == .satisfied)
        #expect(second.service.monitor.record("site")?.refinement?.minor == 7)
    }

    @Test func afterARestartTheExitTimeoutCountsFromTheRestart() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var first = try Self.service(dir)
        try S.play(&first, ads: Self.ads(0...2), ticks: 0...2)
        try Self.echo(&first)
        // Down from 2 s to 100 s. Nothing was listened to meanwhile: no exit at the first tick.
        var second = try Self.service(dir)
        try S.play(&second, ads: [], ticks: 100...140)
        #expect(second.events.map { "\($0.topic)@\(Int($0.seconds))" } == ["beacon.exit.site@130"])
        let exit = try #require(second.all(BeaconExit.self).first?.event.body)
        // last_heard as stored: at the enter (0 s); it is checkpointed only every 10 s of event time.
        #expect(exit.lastHeard == LocationScene.time(0) && exit.refinement?.minor == 4949)
    }

    @Test func unacknowledgedEventsArePublishedAgainAfterACrash() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var first = try Self.service(dir)
        try first.feed(S.ad(S.iBeacon(), at: 0))
        #expect(first.events.map(\.topic) == ["beacon.enter.site"])
        // Crash before the event came back through the hub: the next instance publishes it again, first.
        var second = try Self.service(dir)
        try second.feed(S.ad(S.iBeacon(), at: 1))
        #expect(second.events.map { "\($0.topic)@\(Int($0.seconds))" } == ["beacon.enter.site@0"])
        #expect(second.all(BeaconEnter.self).first?.event.body.refinement?.minor == 4949)
        try Self.echo(&second)
        var third = try Self.service(dir)
        try third.feed(S.ad(S.iBeacon(), at: 2))
        #expect(third.events.isEmpty)
    }

    @Test func runtimeConditionsSurviveAndConfigWinsForItsIds() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var first = try Self.service(dir, [])
        for (id, major) in [("lab", 3838), ("site", 1)] {
            var output = ServiceOutput()
            _ = try first.service.handle(command: "beacon.add", arguments: .object(["id": .string(id), "uuid": .string(S.charmUUID),
                                                                                     "major": .number(Double(major))]), output: &output)
        }
        try first.feed(S.ad(S.iBeacon(), at: 0))
        try Self.echo(&first)
        #expect(first.events.map(\.topic) == ["beacon.enter.lab"])
        // Config now defines "site" (any major): its definition wins; "lab" is still there, still satisfied.
        var second = try Self.service(dir, [BeaconServiceTests.wildcard()])
        try second.feed(S.ad(S.iBeacon(), at: 1))
        #expect(second.service.monitor.condition("lab")?.origin == .runtime)
        #expect(second.service.monitor.record("lab")?.state == .satisfied)
        #expect(second.service.monitor.condition("site")?.origin == .config)
        #expect(second.events.map(\.topic) == ["beacon.enter.site"])
        // Removed at runtime: gone after the next restart too.
        var output = ServiceOutput()
        _ = try second.service.handle(command: "beacon.remove", arguments: .object(["id": "lab"]), output: &output)
        let third = try Self.service(dir, [BeaconServiceTests.wildcard()])
        var t = third
        try t.feed(S.ad(S.iBeacon(), at: 2))
        #expect(t.service.monitor.ids == ["site"])
    }

    @Test func aChangedMatchStartsOverFromUnknown() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var first = try Self.service(dir)
        try first.feed(S.ad(S.iBeacon(), at: 0))
        try Self.echo(&first)
        let narrowed = try S.condition("site", ["uuid": .string(S.charmUUID), "major": .number(9)])
        var second = try Self.service(dir, [narrowed])
        try second.feed(S.ad(S.iBeacon(), at: 1))
        #expect(second.service.monitor.record("site")?.state == .unknown)
    }

    @Test func lastHeardIsCheckpointedWhileSatisfied() throws {
        let dir = Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var first = try Self.service(dir)
        try S.play(&first, ads: Self.ads(0...60), ticks: 0...60)
        try Self.echo(&first)
        // The stored last_heard is at most checkpointInterval (+ a tick) behind.
        var second = try Self.service(dir)
        try second.feed(LocationScene.tick(at: 61))
        let stored = try #require(second.service.monitor.record("site")?.lastHeard)
        #expect(LocationScene.time(60).seconds(since: stored) <= BeaconMonitor.checkpointInterval + 1)
    }
}
