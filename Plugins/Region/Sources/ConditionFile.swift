import Foundation
import LocusConditions
import LocusCore
import LocusRegions

/// The GeoJSON `file:` of a region service, as the runtime hands its bytes over: a
/// FeatureCollection whose features are conditions (options in their properties).
enum ConditionFile {
    static func conditions(_ contents: [UInt8]) throws -> [RegionCondition] {
        let definitions = try GeoJSONRegionLoader.parse(Data(contents))
        return try definitions.enumerated().map { index, d in
            try condition(d, index: index)
        }
    }

    /// A feature's condition: options come from its properties, the rest are echoed.
    static func condition(_ d: RegionDefinition, index: Int) throws -> RegionCondition {
        var properties = d.properties
        func take(_ key: String) -> JSONValue? { properties.removeValue(forKey: key) }
        func fail(_ reason: String) -> RegionGeometryError {
            RegionGeometryError(.invalidGeoJSON, reason, featureIndex: index, featureID: d.id)
        }
        var entry = true, exit = true
        var dwell: Double?
        if let v = take("notify_on_entry") { guard case .bool(let b) = v else { throw fail("properties.notify_on_entry must be true or false") }; entry = b }
        if let v = take("notify_on_exit") { guard case .bool(let b) = v else { throw fail("properties.notify_on_exit must be true or false") }; exit = b }
        if let v = take("dwell") { guard let n = v.doubleValue else { throw fail("properties.dwell must be seconds") }; dwell = n }
        // The file's geometry as given, so records and fingerprints show what the file says.
        var geometry = d.geometry ?? .null
        var radius: Double?
        if case .circle(let c) = d.shape {
            radius = c.radius
            if d.geometry == nil {
                geometry = .object(["type": .string("Point"), "coordinates": .array([.number(c.center.longitude), .number(c.center.latitude)])])
            }
        }
        do {
            return try RegionCondition(id: d.id, geometry: geometry, radius: radius, notifyOnEntry: entry, notifyOnExit: exit,
                                       dwell: dwell, properties: properties, origin: .file)
        } catch var e as RegionGeometryError {
            e.featureIndex = index
            throw e
        }
    }
}
