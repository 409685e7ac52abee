import Foundation
@testable import LocusBeaconPlugin
import LocusCore
import LocusTestKit
import Testing

/// The beacon service across restarts through the runtime's state contract (`KeyedStatefulService`):
/// the state is committed after every message, as the runtime does after every batch, and each
/// "restart" builds a fresh service from config and gives it the committed state, as the
/// runtime does after a `kill -9`. (Skipping what was processed and publishing what was
/// committed but not published are the runtime's part: ServiceStateKillTests.)
@Suite struct BeaconPersistenceTests {
    typealias S = BeaconScene

    static func service(_ conditions: [BeaconCondition]? = nil, configure: (inout BeaconConfiguration) -> Void = { _ in }) throws -> BeaconService {
        try BeaconService(id: "beacons", configuration: try BeaconConfiguration.with {
            $0.conditions = try conditions ?? [BeaconServiceTests.wildcard()]
            configure(&$0)
        })
    }

    static func ads(_ seconds: ClosedRange<Int>, minor: Int = 4949) -> [BusMessage] {
        seconds.map { S.ad(S.iBeacon(minor: minor), at: Double($0)) }
    }

    static func play(_ ads: [BusMessage], ticks: ClosedRange<Int>) -> [BusMessage] {
        timeline(ads, LocationScene.ticks(ticks.lowerBound, ticks.upperBound))
    }

    static func trace(_ events: [EmittedEvent]) -> [String] { events.map { "\($0.topic)@\($0.seconds)" } }

    /// Killed at every message of a walk-by with ranging: the events are those of one run,
    /// ranging distances (the RSSI filters are state) included.
    @Test func restartedAfterEveryMessageTheOutputIsThatOfOneRun() throws {
        let input = Self.play(Self.ads(0...20, minor: 7) + Self.ads(10...40, minor: 8), ticks: 0...90)
        let ranging = [try S.condition("site", ["uuid": .string(S.charmUUID), "ranging": .bool(true)])]
        var whole = ServiceRun(try Self.service(ranging))
        try whole.feed(input)
        #expect(whole.events.contains { $0.topic.hasPrefix("beacon.range.") } && whole.events.contains { $0.topic.hasPrefix("beacon.exit.") })
        var store = CommittedState()
        var run = try store.start(try Self.service(ranging))
        var events: [EmittedEvent] = []
        for m in input {
            try store.feed(&run, [m])
            events += run.events
            run = try store.restart(try Self.service(ranging))
        }
        #expect(Self.trace(events) == Self.trace(whole.events))
        let ranges = events.compactMap { $0.payload as? BeaconRange }.map { $0.beacons.map(\.rssi) }
        #expect(ranges == whole.events.compactMap { $0.payload as? BeaconRange }.map { $0.beacons.map(\.rssi) })
        #expect(ServiceStateTracker(for: try Self.service { $0.persist = false }) == nil)
    }

    /// Down from 2 s to 100 s: like any gap longer than exit_timeout, the first message after
    /// it exits the beacon not heard since (as one run with the same input does).
    @Test func aRestartAfterTheExitTimeoutExitsAtTheFirstMessage() throws {
        var store = CommittedState()
        var first = try store.start(try Self.service())
        try store.feed(&first, Self.play(Self.ads(0...2), ticks: 0...2))
        var second = try store.restart(try Self.service())
        try store.feed(&second, Self.play([], ticks: 100...110))
        #expect(Self.trace(second.events) == ["beacon.exit.site@100.0"])
        let exit = try #require(second.all(BeaconExit.self).first?.event.body)
        #expect(exit.lastHeard == LocationScene.time(2) && exit.refinement?.minor == 4949)
    }

    @Test func runtimeConditionsSurviveAndConfigWinsForItsIds() throws {
        var store = CommittedState()
        var first = try store.start(try Self.service([]))
        for (id, major) in [("lab", 3838), ("site", 1)] {
            var output = ServiceOutput()
            _ = try first.service.handle(command: "beacon.add", arguments: .object(["id": .string(id), "uuid": .string(S.charmUUID),
                                                                                     "major": .number(Double(major))]), output: &output)
            try store.commit(&first)
        }
        try store.feed(&first, [S.ad(S.iBeacon(), at: 0)])
        #expect(first.events.map(\.topic) == ["beacon.enter.lab"])
        // Config now defines "site" (any major): its definition wins; "lab" is still there, still satisfied.
        var second = try store.restart(try Self.service([BeaconServiceTests.wildcard()]))
        try store.feed(&second, [S.ad(S.iBeacon(), at: 1)])
        #expect(second.service.monitor.condition("lab")?.origin == .runtime)
        #expect(second.service.monitor.record("lab")?.state == .satisfied)
        #expect(second.service.monitor.condition("site")?.origin == .config)
        #expect(second.events.map(\.topic) == ["beacon.enter.site"])
        // Removed at runtime: gone after the next restart too.
        var output = ServiceOutput()
        _ = try second.service.handle(command: "beacon.remove", arguments: .object(["id": "lab"]), output: &output)
        try store.commit(&second)
        let third = try store.restart(try Self.service([BeaconServiceTests.wildcard()]))
        #expect(third.service.monitor.ids == ["site"])
    }

    @Test func aChangedMatchStartsOverFromUnknown() throws {
        var store = CommittedState()
        var first = try store.start(try Self.service())
        try store.feed(&first, [S.ad(S.iBeacon(), at: 0)])
        let narrowed = try S.condition("site", ["uuid": .string(S.charmUUID), "major": .number(9)])
        var second = try store.restart(try Self.service([narrowed]))
        try store.feed(&second, [S.ad(S.iBeacon(), at: 1)])
        #expect(second.service.monitor.record("site")?.state == .unknown)
    }

    /// Records that do not read are dropped, and their deletion committed (the service starts
    /// from config for them), never a trap; the fresh start then commits the config's state.
    @Test func damagedRecordsAreDroppedAndDeleted() throws {
        var fresh: any ServicePlugin = try Self.service()
        var tracker = try #require(ServiceStateTracker(for: fresh))
        try tracker.restore([
            "device/": Array(#"{"entries":{"site":{"record":{"state":"nope"}}}}"#.utf8),
            "condition/lab": Array("{not json".utf8),
            "condition/other": Array(#"{"id":"elsewhere","uuid":"426c7565-4368-6172-6d42-6561636f6e73"}"#.utf8),
            "unknown-kind": Array("1".utf8),
        ], into: &fresh)
        let deleted = try tracker.changes(in: &fresh).filter { $0.value == nil }.map(\.key).sorted()
        #expect(deleted == ["condition/lab", "condition/other", "device/", "unknown-kind"])
        #expect((fresh as? BeaconService)?.monitor.ids == ["site"])
        // A per-device record in a one-device service (per_device switched off) is dropped too.
        var again: any ServicePlugin = try Self.service()
        var t2 = try #require(ServiceStateTracker(for: again))
        try t2.restore(["device/gw1": Array("{}".utf8)], into: &again)
        #expect(try t2.changes(in: &again).contains { $0.key == "device/gw1" && $0.value == nil })
    }
}
