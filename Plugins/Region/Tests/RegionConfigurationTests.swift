import Foundation
import LocusCore
@testable import LocusRegionPlugin
import LocusTestKit
import Testing

@Suite struct RegionConfigurationTests {
    @Test func inlineRegionsDecode() throws {
        let c = try decodeConfiguration(RegionConfiguration.self, """
        {"min_distance": 5, "regions": [
          {"id": "home", "center": {"lat": 52.5, "lon": 13.4}, "radius": 150, "dwell": 60, "properties": {"name": "Home"}},
          {"id": "yard", "notify_on_exit": false, "geometry": {"type": "Polygon",
            "coordinates": [[[13.40, 52.51], [13.41, 52.51], [13.41, 52.52], [13.40, 52.51]]]}}]}
        """)
        #expect(c.minDistance == 5 && c.minDuration == 20 && c.maxAccuracy == 100 && c.persist)
        #expect(c.regions.map(\.id) == ["home", "yard"])
        #expect(c.regions[0].dwell == 60 && c.regions[0].radius == 150)
        #expect(c.regions[0].properties == ["name": .string("Home")])
        #expect(c.regions[1].notifyOnExit == false && c.regions[1].notifyOnEntry)
    }

    @Test func badValuesNameTheirKey() {
        #expect(configErrorKey(RegionConfiguration.self, #"{"min_distance": -1}"#) == "min_distance")
        #expect(configErrorKey(RegionConfiguration.self, #"{"max_accuracy": 0}"#) == "max_accuracy")
        #expect(configErrorKey(RegionConfiguration.self, #"{"sources": ["GPS 0"]}"#) == "sources")
        // A bad entry names the entry, a bad value its key (issue 50 item 9: the error's position).
        #expect(configErrorKey(RegionConfiguration.self, #"{"regions": [{"id": "a", "center": {"lat": 1, "lon": 2}}]}"#) == "regions.0")
        #expect(configErrorKey(RegionConfiguration.self, #"{"regions": [{"id": "a", "center": {"lat": 1, "lon": 2}, "radius": "fifty"}]}"#) == "regions.0.radius")
        #expect(configErrorKey(RegionConfiguration.self, #"{"regions": [{"id": "a", "center": {"lat": 1, "lon": "x"}, "radius": 5}]}"#) == "regions.0.center.lon")
        #expect(configErrorKey(RegionConfiguration.self, #"{"regions": [{"id": "a", "center": {"lat": 1, "lon": 2}, "radius": 5, "dwell": true}]}"#) == "regions.0.dwell")
        // An unknown key names its entry, for the runtime to point at the key itself.
        #expect(configErrorKey(RegionConfiguration.self, #"{"regions": [{"id": "a", "center": {"lat": 1, "lon": 2}, "radius": 5, "colour": 1}]}"#) == "regions.0")
        #expect(configErrorKey(RegionConfiguration.self, #"{"regions": [{"id": "a", "center": {"lat": 1, "lng": 2}, "radius": 5}]}"#) == "regions.0.center")
        #expect(configErrorKey(RegionConfiguration.self, #"{"regions": [{"id": "a", "center": {"lat": 1, "lon": 2}, "radius": 5}, {"id": "a", "center": {"lat": 1, "lon": 2}, "radius": 5}]}"#) == "regions.1.id")
        // An unclosed ring is rejected with the region's id and the reason.
        do {
            _ = try decodeConfiguration(RegionConfiguration.self, #"{"regions": [{"id": "open", "geometry": {"type": "Polygon", "coordinates": [[[0,0],[1,0],[1,1],[0,1]]]}}]}"#)
            Issue.record("unclosed ring accepted")
        } catch let e as ConfigValueError {
            #expect(e.message.contains("open") && e.message.contains("not closed"), "\(e.message)")
        } catch { Issue.record("\(error)") }
    }

    @Test func fileRegionsLoadAndClashWithInlineIds() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("region-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("r.geojson").path
        try #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"p","properties":{"radius":50,"dwell":9,"name":"P"},"geometry":{"type":"Point","coordinates":[13.4,52.5]}}]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        let setup = PluginSetup(id: "fences", kind: .service, configDirectory: dir.path,
                                endpoints: HubEndpoints(ingest: "", publish: "", control: ""), logger: .init(label: "t"))
        var service = try RegionService(id: "fences", configuration: RegionConfiguration.with { $0.file = "r.geojson" }, setup: setup)
        try ServiceFiles.load(&service)
        var output = ServiceOutput()
        _ = try service.handle(command: "region.list", arguments: .object([:]), output: &output)
        let p = try #require(service.monitor.condition("p"))
        #expect(p.origin == .file && p.dwell == 9 && p.radius == 50 && p.properties == ["name": .string("P")])
        let clash = try RegionConfiguration.with { $0.regions = [try RegionCondition(id: "p", center: .init(latitude: 1, longitude: 1), radius: 5, origin: .config)]; $0.file = "r.geojson" }
        var clashing = try RegionService(id: "fences", configuration: clash, setup: setup)
        #expect(throws: ConfigValueError.self) { try ServiceFiles.load(&clashing) }
        // A broken file at start is a config error naming the feature.
        try #"{"type":"FeatureCollection","features":[{"type":"Feature","id":"q","properties":{},"geometry":{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1]]]}}]}"#
            .write(toFile: file, atomically: true, encoding: .utf8)
        do {
            var broken = try RegionService(id: "fences", configuration: RegionConfiguration.with { $0.file = "r.geojson" }, setup: setup)
            try ServiceFiles.load(&broken)
            Issue.record("broken file accepted")
        } catch let e as ConfigValueError {
            #expect(e.key == "file" && e.message.contains("\"q\""), "\(e.message)")
        }
    }

    @Test func fileIsReloadedWhenItChanges() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("region-reload-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let file = dir.appendingPathComponent("r.geojson").path
        func write(_ ids: [(String, Double)]) throws {
            let features = ids.map { id, north in
                let c = LocationScene.place(north: north)
                return #"{"type":"Feature","id":"\#(id)","properties":{"radius":100},"geometry":{"type":"Point","coordinates":[\#(c.longitude),\#(c.latitude)]}}"#
            }
            try (#"{"type":"FeatureCollection","features":["# + features.joined(separator: ",") + "]}").write(toFile: file, atomically: true, encoding: .utf8)
        }
        try write([("a", 0), ("b", 5000)])
        let setup = PluginSetup(id: "fences", kind: .service, configDirectory: dir.path,
                                endpoints: HubEndpoints(ingest: "", publish: "", control: ""), logger: .init(label: "t"))
        var run = ServiceRun(try RegionService(id: "fences", configuration: RegionConfiguration.with { $0.file = "r.geojson"; $0.fileCheckInterval = 1 }, setup: setup))
        try run.loadFiles()
        try run.feed(LocationScene.fix(at: 0, north: 0), LocationScene.tick(at: 0))
        #expect(run.events.map(\.topic) == ["region.enter.a"])
        // b moves onto the device, a is removed, c is new.
        try write([("b", 0), ("c", 0)])
        try run.feed(LocationScene.tick(at: 2))
        try run.deliverFiles()
        try run.feed(LocationScene.fix(at: 3, north: 0))
        #expect(run.service.monitor.ids == ["b", "c"])
        #expect(run.events.map(\.topic) == ["region.enter.a", "region.enter.b", "region.enter.c"])
        // A broken file keeps what was loaded; so does a missing one.
        try "{not json".write(toFile: file, atomically: true, encoding: .utf8)
        try run.deliverFiles()
        try FileManager.default.removeItem(atPath: file)
        try run.deliverFiles()
        #expect(run.service.monitor.ids == ["b", "c"])
        #expect(run.service.counters.fileReloadFailures == 2)
    }
}
