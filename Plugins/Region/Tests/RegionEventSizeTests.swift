import Foundation
import LocusCore
@testable import LocusRegionPlugin
import LocusTestKit
import Testing

/// Issue 29 item 3: `region add … properties=@300KB.json` was accepted, and every event of that
/// region was then dropped by the hub as too_large, forever and again after each restart. A
/// condition whose events could not pass the hub is refused where it is defined, with the limit.
@Suite struct RegionEventSizeTests {
    static func properties(bytes: Int) -> [String: JSONValue] {
        ["note": .string(String(repeating: "n", count: bytes))]
    }

    static func setup(maxMessageBytes: Int = PluginSetup.defaultMaxMessageBytes) -> PluginSetup {
        PluginSetup(id: "fences", kind: .service, configDirectory: "", endpoints: HubEndpoints(ingest: "", publish: "", control: ""),
                    logger: .init(label: "t"), maxMessageBytes: maxMessageBytes)
    }

    @Test func regionAddRefusesPropertiesWhoseEventsCouldNotPassTheHub() throws {
        var run = ServiceRun(try RegionService(id: "fences", configuration: RegionConfiguration.with { $0.regions = [RegionServiceTests.circle("home")] },
                                               setup: Self.setup()))
        var args = RegionCommandTests.circleArgs("big")
        args["properties"] = .object(Self.properties(bytes: 300_000))
        let message = RegionCommandTests.error { _ = try RegionCommandTests.handle(&run, "region.add", args) }
        #expect(message?.contains("262144") == true && message?.contains("hub.max_message_bytes") == true, "\(message ?? "accepted")")
        #expect(run.service.monitor.ids == ["home"])
        // Just under the limit with the event's own members: accepted.
        args["properties"] = .object(Self.properties(bytes: 250_000))
        _ = try RegionCommandTests.handle(&run, "region.add", args)
        #expect(run.service.monitor.ids == ["big", "home"])
    }

    /// The bound is an upper bound: real events of a condition never exceed it, whatever they carry.
    @Test func realEventsStayWithinTheComputedBound() throws {
        let condition = RegionServiceTests.circle("home", dwell: 5, properties: Self.properties(bytes: 1000))
        let bound = condition.largestEventBytes(monitor: "fences", publishConditions: true)
        var run = ServiceRun(try RegionService(id: "fences", configuration: RegionConfiguration.with {
            $0.regions = [condition]; $0.publishConditions = true; $0.minDuration = 1 }))
        for t in 0...30 { try run.feed(LocationScene.fix(at: Double(t), north: t < 15 ? 0 : 5000)) }
        #expect(Set(run.events.map { $0.topic.split(separator: ".").prefix(2).joined(separator: ".") })
                    .isSuperset(of: ["region.enter", "region.exit", "region.dwell", "region.condition"]))
        func encoded<P: Payload>(_ type: P.Type, _ e: EmittedEvent) -> Int? {
            e.payload(P.self).map { EnvelopeCodec.encode($0, producer: "fences", seq: 1_000_000, time: LocationScene.time(30)).count }
        }
        for e in run.events {
            let bytes = encoded(RegionEnter.self, e) ?? encoded(RegionExit.self, e) ?? encoded(RegionDwell.self, e)
                ?? encoded(RegionStateSnapshot.self, e) ?? encoded(RegionConditionEvent.self, e) ?? Int.max
            #expect(bytes <= bound, "\(e.topic): \(bytes) > \(bound)")
        }
        #expect(bound < 1000 + 2 * Topic.maxLength + 1000)
    }

    @Test func configAndPublishedGeometryCountToo() throws {
        // In config: refused at build, so `locus check` refuses it.
        let big = RegionServiceTests.circle("home", properties: Self.properties(bytes: 5000))
        do {
            _ = try RegionService(id: "fences", configuration: RegionConfiguration.with { $0.regions = [big] }, setup: Self.setup(maxMessageBytes: 4096))
            Issue.record("accepted")
        } catch let e as ConfigValueError {
            #expect(e.key == "regions" && e.message.contains("4096") && e.message.contains("'home'"), "\(e.message)")
        }
        _ = try RegionService(id: "fences", configuration: RegionConfiguration.with { $0.regions = [big] }, setup: Self.setup(maxMessageBytes: 8192))
        // A polygon of many vertices: its transitions are small, its region.condition is not.
        let ring: [JSONValue] = (0...3000).map { k in
            let a = Double(k % 3000) / 3000 * 2 * .pi
            return .array([.number(13.4 + 0.01 * cos(a)), .number(52.5 + 0.01 * sin(a))])
        }
        let polygon = try RegionCondition(id: "lake", geometry: .object(["type": .string("Polygon"), "coordinates": .array([.array(ring)])]), origin: .config)
        #expect(polygon.eventSizeProblem(monitor: "fences", publishConditions: false, maxMessageBytes: 16384) == nil)
        let problem = polygon.eventSizeProblem(monitor: "fences", publishConditions: true, maxMessageBytes: 16384)
        #expect(problem?.contains("geometry") == true, "\(problem ?? "nil")")
    }
}
