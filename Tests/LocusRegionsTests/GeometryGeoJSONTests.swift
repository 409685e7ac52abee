import Foundation
import LocusCore
import LocusRegions
import Testing

@Suite struct GeometryGeoJSONTests {
    static let collection = """
    {"type": "FeatureCollection", "features": [
      {"type": "Feature", "id": "home",
       "geometry": {"type": "Point", "coordinates": [14.5058, 46.0569]},
       "properties": {"radius": 150, "notify_on_entry": true, "label": "Home"}},
      {"type": "Feature",
       "geometry": {"type": "Polygon", "coordinates": [
          [[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]],
          [[0.4, 0.4], [0.6, 0.4], [0.6, 0.6], [0.4, 0.6], [0.4, 0.4]]]},
       "properties": {"id": "yard", "notify_on_exit": false}},
      {"type": "Feature", "id": 7,
       "geometry": {"type": "MultiPolygon", "coordinates": [
          [[[179, -1, 12.5], [-179, -1, 12.5], [-179, 1, 12.5], [179, 1, 12.5], [179, -1, 12.5]]],
          [[[10, 5], [11, 5], [11, 6], [10, 6], [10, 5]]]]},
       "properties": null}
    ]}
    """

    @Test func aFeatureCollectionBecomesRegionDefinitions() throws {
        let regions = try GeoJSONRegionLoader.parse(Data(Self.collection.utf8))
        #expect(regions.map(\.id) == ["home", "yard", "7"])

        guard case .circle(let home) = regions[0].shape else { Issue.record("home is not a circle"); return }
        #expect(home.center == at(46.0569, 14.5058))   // GeoJSON is [longitude, latitude]
        #expect(home.radius == 150)
        #expect(regions[0].properties == ["notify_on_entry": .bool(true), "label": .string("Home")])

        #expect(regions[1].shape.contains(at(0.2, 0.2)))
        #expect(!regions[1].shape.contains(at(0.5, 0.5)))
        #expect(regions[1].properties == ["notify_on_exit": .bool(false)])

        #expect(regions[2].shape.contains(at(0, 179.5)))
        #expect(regions[2].shape.contains(at(5.5, 10.5)))
        #expect(regions[2].properties.isEmpty)
    }

    @Test func aFileIsLoadedFromDisk() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("locus-regions-\(UUID().uuidString).geojson")
        try Data(Self.collection.utf8).write(to: url)
        defer { try? FileManager.default.removeItem(at: url) }
        #expect(try GeoJSONRegionLoader.load(contentsOf: url).map(\.id) == ["home", "yard", "7"])
    }

    static func feature(_ id: String, _ geometry: String, properties: String = "{}") -> String {
        """
        {"type": "FeatureCollection", "features": [
          {"type": "Feature", "id": "ok", "geometry": {"type": "Point", "coordinates": [0, 0]}, "properties": {"radius": 10}},
          {"type": "Feature", \(id) "geometry": \(geometry), "properties": \(properties)}]}
        """
    }

    @Test(arguments: [
        (feature(#""id": "depot","#, #"{"type": "Polygon", "coordinates": [[[0, 0], [1, 0], [1, 1], [0, 1]]]}"#),
         #"feature 1 (id "depot"): ring 0 is not closed: its first position must equal its last"#),
        (feature("", #"{"type": "Point", "coordinates": [0, 0]}"#, properties: #"{"radius": 5}"#),
         #"feature 1: has no "id" (set the feature's id or properties.id)"#),
        (feature(#""id": "ok","#, #"{"type": "Point", "coordinates": [0, 0]}"#, properties: #"{"radius": 5}"#),
         #"feature 1 (id "ok"): id "ok" is already used by feature 0"#),
        (feature(#""id": "road","#, #"{"type": "LineString", "coordinates": [[0, 0], [1, 1]]}"#),
         #"feature 1 (id "road"): geometry type LineString is not supported (use Polygon, MultiPolygon, or Point with properties.radius)"#),
        (feature(#""id": "pin","#, #"{"type": "Point", "coordinates": [0, 0]}"#),
         #"feature 1 (id "pin"): a Point region needs a numeric properties.radius (metres)"#),
        (feature(#""id": "bad","#, #"{"type": "Point", "coordinates": ["x", 0]}"#, properties: #"{"radius": 5}"#),
         #"feature 1 (id "bad"): a position must be [longitude, latitude] numbers"#),
    ])
    func badFeaturesAreReportedWithIndexIdAndReason(document: String, message: String) {
        #expect { try GeoJSONRegionLoader.parse(Data(document.utf8)) } throws: {
            ($0 as? RegionGeometryError)?.description == message
        }
    }

    @Test func aDocumentThatIsNotAFeatureCollectionIsRejected() {
        #expect { try GeoJSONRegionLoader.parse(Data(#"{"type": "Feature"}"#.utf8)) } throws: {
            ($0 as? RegionGeometryError)?.code == .invalidGeoJSON
        }
    }
}
