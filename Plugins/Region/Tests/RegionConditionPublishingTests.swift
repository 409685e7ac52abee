import Foundation
import LocusCore
@testable import LocusRegionPlugin
import LocusRegions
import LocusTestKit
import Testing

/// `publish_conditions`: definitions on the bus as `region.condition.<id>`, at start, on
/// add/replace/remove and on a file reload; none without the option.
@Suite struct RegionConditionPublishingTests {
    static let square: JSONValue = .object(["type": .string("Polygon"), "coordinates": .array([.array([
        .array([.number(14.0), .number(45.0)]), .array([.number(14.1), .number(45.0)]),
        .array([.number(14.1), .number(45.1)]), .array([.number(14.0), .number(45.0)]),
    ])])])

    static func service(publish: Bool = true, setup: PluginSetup? = nil,
                        _ configure: (inout RegionConfiguration) -> Void = { _ in }) throws -> ServiceRun<RegionService> {
        let yard = try RegionCondition(id: "yard", geometry: square, notifyOnExit: false, properties: ["name": .string("Yard")], origin: .config)
        return ServiceRun(try RegionService(id: "fences", configuration: RegionConfiguration.with {
            $0.regions = [RegionServiceTests.circle("home", radius: 120, dwell: 30), yard]
            $0.publishConditions = publish
            configure(&$0)
        }, setup: setup))
    }

    static func definitions(_ run: ServiceRun<RegionService>) -> [(topic: String, seconds: Double, event: RegionConditionEvent)] {
        run.events.compactMap { e in e.payload(RegionConditionEvent.self).map { (e.topic, e.seconds, $0) } }
    }

    @Test func everyConditionIsAnnouncedOnceAtTheFirstMessagesTime() throws {
        var run = try Self.service()
        try run.feed(LocationScene.fix(at: 5, north: 1000), LocationScene.fix(at: 6, north: 1000), LocationScene.tick(at: 7))
        let d = Self.definitions(run)
        #expect(d.map(\.topic) == ["region.condition.home", "region.condition.yard"])
        #expect(d.allSatisfy { $0.seconds == 5 })
        let home = try #require(d.first?.event.condition)
        #expect(home.radius == 120 && home.dwell == 30 && home.origin == .config)
        #expect(d[1].event.condition?.geometry == Self.square && d[1].event.condition?.notifyOnExit == false)
        #expect(d[1].event.condition?.properties == ["name": .string("Yard")])
    }

    @Test func thePayloadReadsBackAsTheSameDefinition() throws {
        var run = try Self.service()
        try run.feed(LocationScene.fix(at: 0))
        for e in Self.definitions(run).map(\.event) {
            var w = JSONWriter()
            e.write(to: &w)
            let back = try JSONReader.read(w.bytes) { r in try RegionConditionEvent(from: &r) }
            #expect(back == e, "\(String(decoding: w.bytes, as: UTF8.self))")
        }
        var w = JSONWriter()
        RegionConditionEvent(region: "gone", monitor: "fences", condition: nil).write(to: &w)
        #expect(String(decoding: w.bytes, as: UTF8.self) == #"{"region":"gone","monitor":"fences","removed":true}"#)
    }

    @Test func addReplaceAndRemoveAreAnnounced() throws {
        var run = try Self.service()
        try run.feed(LocationScene.fix(at: 0, north: 1000))
        var output = ServiceOutput()
        let shop: [String: JSONValue] = ["id": .string("shop"), "lat": .number(45.8), "lon": .number(14.4), "radius": .number(40)]
        _ = try run.service.handle(command: "region.add", arguments: .object(shop), output: &output)
        #expect(output.events.map(\.topic) == ["region.condition.shop", "region.state.shop"])
        #expect((output.events[0].payload as? RegionConditionEvent)?.condition?.radius == 40)
        output = ServiceOutput()
        _ = try run.service.handle(command: "region.add", arguments: .object(shop.merging(["radius": .number(60)]) { $1 }), output: &output)
        #expect((output.events[0].payload as? RegionConditionEvent)?.condition?.radius == 60)
        output = ServiceOutput()
        _ = try run.service.handle(command: "region.remove", arguments: .object(["id": .string("shop")]), output: &output)
        #expect(output.events.map(\.topic) == ["region.condition.shop"])
        #expect((output.events[0].payload as? RegionConditionEvent)?.condition == nil)
        // A refused command announces nothing.
        output = ServiceOutput()
        #expect(throws: ServiceCommandError.self) {
            _ = try run.service.handle(command: "region.remove", arguments: .object(["id": .string("home")]), output: &output)
        }
        #expect(output.events.isEmpty)
    }

    @Test func withoutTheOptionNothingIsAnnounced() throws {
        var run = try Self.service(publish: false)
        try run.feed(LocationScene.fix(at: 0, north: 1000))
        var output = ServiceOutput()
        _ = try run.service.handle(command: "region.add", arguments: .object(
            ["id": .string("shop"), "lat": .number(45.8), "lon": .number(14.4), "radius": .number(40)]), output: &output)
        #expect(Self.definitions(run).isEmpty)
        #expect(output.events.map(\.topic) == ["region.state.shop"])
    }

    @Test func aFileReloadAnnouncesWhatChanged() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("region-publish-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("r.geojson").path
        func write(_ ids: [(String, Double)]) throws {
            let features = ids.map { id, radius in
                #"{"type":"Feature","id":"\#(id)","properties":{"radius":\#(radius)},"geometry":{"type":"Point","coordinates":[14.36,45.77]}}"#
            }
            try (#"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}").write(toFile: file, atomically: true, encoding: .utf8)
        }
        try write([("a", 100), ("b", 100)])
        let setup = PluginSetup(id: "fences", kind: .service, configDirectory: dir.path,
                                endpoints: HubEndpoints(ingest: "", publish: "", control: ""), logger: .init(label: "t"))
        var run = try Self.service(setup: setup) { $0.regions = []; $0.file = "r.geojson"; $0.fileCheckInterval = 1 }
        try run.loadFiles()
        try run.feed(LocationScene.tick(at: 0))
        #expect(Self.definitions(run).map(\.topic) == ["region.condition.a", "region.condition.b"])
        // a removed, b unchanged, c new.
        try write([("b", 100), ("c", 50)])
        try run.feed(LocationScene.tick(at: 2))
        try run.deliverFiles()
        let after = Self.definitions(run).dropFirst(2)
        #expect(after.map(\.topic) == ["region.condition.a", "region.condition.c"])
        #expect(after.first?.event.condition == nil && after.last?.event.condition?.radius == 50)
        #expect(after.allSatisfy { $0.seconds == 2 })
    }
}

/// `state_on_transition`: `region.state` right after each enter and exit (not dwell), at the
/// same time, holding the new state: what a retained MQTT topic needs.
@Suite struct RegionStateOnTransitionTests {
    @Test func eachEnterAndExitIsFollowedByTheNewState() throws {
        var run = ServiceRun(try RegionService(id: "fences", configuration: RegionConfiguration.with {
            $0.regions = [RegionServiceTests.circle("home", radius: 100, dwell: 40)]
            $0.stateOnTransition = true
        }))
        for t in 0...10 { try run.feed(LocationScene.fix(at: Double(t), north: 300)) }
        for t in 11...60 { try run.feed(LocationScene.fix(at: Double(t), north: 50)) }
        for t in 61...90 { try run.feed(LocationScene.fix(at: Double(t), north: 300)) }
        #expect(RegionServiceTests.trace(run) == ["region.enter.home@30", "region.state.home@30", "region.dwell.home@51",
                                                  "region.exit.home@80", "region.state.home@80"])
        let states = run.all(RegionStateSnapshot.self).map(\.event.body.state)
        #expect(states == [.satisfied, .unsatisfied])
        // Off by default.
        var plain = RegionServiceTests.service()
        for t in 0...40 { try plain.feed(LocationScene.fix(at: Double(t), north: 50)) }
        #expect(RegionServiceTests.trace(plain) == ["region.enter.home@0"])
    }

    @Test func perDeviceStatesGoToTheDevicesTopic() throws {
        var run = try RegionPerDeviceTests.service { $0.stateOnTransition = true }
        try run.feed(LocationScene.fix("van7", at: 0, north: 0))
        #expect(run.events.map(\.topic) == ["region.enter.home.van7", "region.state.home.van7"])
        #expect(run.all(RegionStateSnapshot.self).first?.event.body.device == "van7")
    }
}
