import Foundation
import LocusCore
@testable import LocusRegionPlugin
import LocusRegions
import LocusTestKit
import Testing

/// `locus ctl region …` as the service handles it (the runtime's routing has its own tests).
@Suite struct RegionCommandTests {
    typealias Run = ServiceRun<RegionService>

    static func handle(_ run: inout Run, _ command: String, _ args: [String: JSONValue]) throws -> (JSONValue, [ServiceOutput.Event]) {
        var output = ServiceOutput()
        let reply = try run.service.handle(command: command, arguments: .object(args), output: &output)
        return (reply, output.events)
    }

    static func circleArgs(_ id: String, north: Double = 0, radius: Double = 100) -> [String: JSONValue] {
        let c = LocationScene.place(north: north)
        return ["id": .string(id), "lat": .number(c.latitude), "lon": .number(c.longitude), "radius": .number(radius)]
    }

    static func error(_ body: () throws -> Void) -> String? {
        do { try body(); return nil } catch let e as ServiceCommandError { return e.description } catch { return "\(error)" }
    }

    /// Before any message, a command's events are at the time the runtime took it
    /// (`commandArrives`), never the service's own reading of the wall clock; after one, at the
    /// last message's time.
    @Test func aCommandBeforeAnyMessageIsAtTheTimeTheRuntimeGave() throws {
        var run = RegionServiceTests.service([RegionServiceTests.circle("home")])
        run.service.commandArrives(at: LocationScene.time(-30))
        var (_, events) = try Self.handle(&run, "region.record", ["id": .string("home")])
        #expect(events.map(\.topic) == ["region.state.home"])
        #expect(events.map(\.time) == [LocationScene.time(-30)])
        try run.feed(LocationScene.fix(at: 5, north: 1000))
        run.service.commandArrives(at: LocationScene.time(99))
        (_, events) = try Self.handle(&run, "region.record", ["id": .string("home")])
        #expect(events.map(\.time) == [LocationScene.time(5)])
    }

    @Test func addListRecordRemoveRoundTrip() throws {
        var run = RegionServiceTests.service([RegionServiceTests.circle("home")])
        try run.feed(LocationScene.fix(at: 0, north: 1000))
        var (reply, events) = try Self.handle(&run, "region.add", Self.circleArgs("shop", north: 1000, radius: 50)
                                                .merging(["dwell": .number(30), "properties": .object(["k": .string("v")])]) { $1 })
        #expect(reply["state"] == .string("unknown"))
        #expect(reply["definition"]?["origin"] == .string("runtime"))
        #expect(events.map(\.topic) == ["region.state.shop"])
        // The snapshot carries the last fix's time and distance (at the centre: 50 m inside).
        let snapshot = try #require(events.first?.payload as? RegionStateSnapshot)
        #expect(snapshot.body.state == .unknown && abs(snapshot.body.distance! - 50) < 0.5)
        #expect(events.first?.time == LocationScene.time(0))

        (reply, _) = try Self.handle(&run, "region.list", [:])
        #expect(reply["count"] == .number(2))
        #expect(reply["regions"] == .array([
            .object(["id": .string("home"), "state": .string("unsatisfied"), "origin": .string("config")]),
            .object(["id": .string("shop"), "state": .string("unknown"), "origin": .string("runtime")]),
        ]))
        // The next fix decides the new region.
        try run.feed(LocationScene.fix(at: 1, north: 1000))
        #expect(run.events.map(\.topic) == ["region.enter.shop"])
        (reply, events) = try Self.handle(&run, "region.record", ["id": .string("shop")])
        #expect(reply["state"] == .string("satisfied"))
        #expect(reply["last_event"]?["type"] == .string("region.enter"))
        #expect(events.map(\.topic) == ["region.state.shop"])
        (reply, _) = try Self.handle(&run, "region.list", ["state": .string("satisfied")])
        #expect(reply["count"] == .number(1))

        (reply, _) = try Self.handle(&run, "region.remove", ["id": .string("shop")])
        #expect(reply == .object(["removed": .string("shop")]))
        #expect(run.service.monitor.ids == ["home"])
        for t in 2...25 { try run.feed(LocationScene.fix(at: Double(t), north: 0)) }
        #expect(run.events.map(\.topic) == ["region.enter.shop", "region.enter.home"])
    }

    @Test func invalidRequestsAreRefusedAndChangeNothing() throws {
        var run = RegionServiceTests.service([RegionServiceTests.circle("home")])
        _ = try Self.handle(&run, "region.list", [:])
        let before = run.service.monitor.ids
        #expect(before == ["home"])
        let bowtie: JSONValue = .object(["type": .string("Polygon"), "coordinates": .array([.array([
            .array([.number(0), .number(0)]), .array([.number(1), .number(1)]), .array([.number(1), .number(0)]),
            .array([.number(0), .number(1)]), .array([.number(0), .number(0)])])])])
        let cases: [(String, [String: JSONValue], String)] = [
            ("region.add", ["id": .string("x")], "needs lat, lon and radius"),
            ("region.add", ["id": .string("Bad Id"), "lat": .number(1), "lon": .number(1), "radius": .number(5)], "topic segment"),
            ("region.add", Self.circleArgs("neg", radius: -5), "radius"),
            ("region.add", ["id": .string("bow"), "geometry": bowtie], "intersect"),
            ("region.add", Self.circleArgs("a").merging(["assuming": .string("maybe")]) { $1 }, "assuming must be"),
            ("region.add", Self.circleArgs("home"), "defined in config"),
            ("region.remove", ["id": .string("home")], "defined in config"),
            ("region.remove", ["id": .string("nope")], "no region 'nope'"),
            ("region.remove", [:], "missing id"),
            ("region.record", ["id": .string("nope")], "no region"),
            ("region.list", ["state": .string("inside")], "state must be"),
            ("region.list", ["colour": .string("red")], "unknown argument 'colour'"),
        ]
        for (command, args, expected) in cases {
            let message = Self.error { _ = try Self.handle(&run, command, args) }
            #expect(message?.contains(expected) == true, "\(command) \(args): \(message ?? "no error")")
        }
        #expect(run.service.monitor.ids == before)
        #expect(run.service.monitor.condition("home")?.origin == .config)
    }

    @Test func assumingIsCorrectedByTheFirstDecidingFix() throws {
        var run = RegionServiceTests.service([])
        _ = try Self.handle(&run, "region.add", Self.circleArgs("right").merging(["assuming": .string("satisfied")]) { $1 })
        _ = try Self.handle(&run, "region.add", Self.circleArgs("wrong", north: 2000).merging(["assuming": .string("satisfied")]) { $1 })
        #expect(run.service.monitor.record("wrong")?.assumed == true)
        try run.feed(LocationScene.fix(at: 0, north: 0))
        // The right assumption is confirmed silently; the wrong one is corrected at once.
        #expect(run.events.map(\.topic) == ["region.exit.wrong"])
        let exit = try #require(run.all(RegionExit.self).first?.event.body)
        #expect(exit.previousState == .satisfied && !exit.assumed)
        #expect(run.service.monitor.record("right")?.assumed == false)
    }

    @Test func addingARuntimeIdAgainReplacesIt() throws {
        var run = RegionServiceTests.service([])
        _ = try Self.handle(&run, "region.add", Self.circleArgs("a"))
        try run.feed(LocationScene.fix(at: 0, north: 0))
        #expect(run.service.monitor.record("a")?.state == .satisfied)
        // Same shape: state kept. A new shape: unknown again, decided by the next fix.
        _ = try Self.handle(&run, "region.add", Self.circleArgs("a").merging(["dwell": .number(5)]) { $1 })
        #expect(run.service.monitor.record("a")?.state == .satisfied)
        _ = try Self.handle(&run, "region.add", Self.circleArgs("a", north: 5000))
        #expect(run.service.monitor.record("a")?.state == .unknown)
    }
}
