import Foundation
import LocusCore

/// Reads region definitions from a GeoJSON FeatureCollection (RFC 7946).
///
/// Each feature becomes one `RegionDefinition`:
/// - `Polygon` and `MultiPolygon` geometries become `.polygons`, validated (see
///   `PolygonRegion.init(polygons:)`); a third coordinate (altitude) is ignored.
/// - A `Point` with a numeric `properties.radius` (metres) becomes a geodesic `.circle`.
/// - The id is the feature's `id` (string or number), else `properties.id`; ids must be unique.
///
/// Configuration loading, not a hot path: the document is decoded into `JSONValue` first.
public enum GeoJSONRegionLoader {
    /// Loads a FeatureCollection file.
    /// - Throws: `RegionGeometryError` for the first bad feature, with its index and id;
    ///   a file that cannot be read is reported as the underlying Foundation error.
    public static func load(contentsOf url: URL) throws -> [RegionDefinition] {
        try parse(try Data(contentsOf: url))
    }

    /// Parses a FeatureCollection document.
    /// - Throws: `RegionGeometryError` for the first bad feature, with its index and id.
    public static func parse(_ data: Data) throws -> [RegionDefinition] {
        let document: JSONValue
        // The hand-written reader, not Foundation's decoder: this runs at every start and
        // restore of a region service, and JSONDecoder guesses each value's type by throwing.
        do { document = try JSONValue.read([UInt8](data)) } catch {
            throw RegionGeometryError(.invalidGeoJSON, "not valid JSON: \(error)")
        }
        guard document["type"]?.stringValue == "FeatureCollection", case .array(let features)? = document["features"] else {
            throw RegionGeometryError(.invalidGeoJSON, "the document is not a GeoJSON FeatureCollection with a \"features\" array")
        }
        var definitions: [RegionDefinition] = []
        var seen: [String: Int] = [:]
        for (index, feature) in features.enumerated() {
            let id = featureID(feature)
            do {
                guard let id else { throw RegionGeometryError(.missingID, "has no \"id\" (set the feature's id or properties.id)") }
                if let earlier = seen[id] {
                    throw RegionGeometryError(.duplicateID, "id \"\(id)\" is already used by feature \(earlier)")
                }
                seen[id] = index
                definitions.append(try definition(feature, id: id))
            } catch let error as RegionGeometryError {
                throw error.located(featureIndex: index, featureID: id)
            }
        }
        return definitions
    }

    static func featureID(_ feature: JSONValue) -> String? {
        for candidate in [feature["id"], feature["properties"]?["id"]] {
            switch candidate {
            case .string(let s)?: return s
            case .number(let n)?: return n == n.rounded() && abs(n) < 1e15 ? String(Int64(n)) : String(n)
            default: continue
            }
        }
        return nil
    }

    static func definition(_ feature: JSONValue, id: String) throws -> RegionDefinition {
        guard feature["type"]?.stringValue == "Feature" else {
            throw RegionGeometryError(.invalidGeoJSON, "is not a GeoJSON Feature (\"type\": \"Feature\")")
        }
        var properties: [String: JSONValue] = [:]
        if case .object(let p)? = feature["properties"] { properties = p }
        properties["id"] = nil
        guard let geometry = feature["geometry"], let type = geometry["type"]?.stringValue else {
            throw RegionGeometryError(.invalidGeoJSON, "has no geometry with a \"type\"")
        }
        let coordinates = geometry["coordinates"] ?? .null
        let shape: RegionShape
        switch type {
        case "Point":
            guard let radius = properties["radius"]?.doubleValue else {
                throw RegionGeometryError(.invalidCircle, "a Point region needs a numeric properties.radius (metres)")
            }
            properties["radius"] = nil
            shape = try .circle(center: try position(coordinates), radius: radius)
        case "Polygon":
            shape = try .polygons([try polygon(coordinates)])
        case "MultiPolygon":
            shape = try .polygons(try array(coordinates, "MultiPolygon coordinates").map(polygon))
        default:
            throw RegionGeometryError(.unsupportedGeometry, "geometry type \(type) is not supported (use Polygon, MultiPolygon, or Point with properties.radius)")
        }
        var result = RegionDefinition(id: id, shape: shape, properties: properties)
        result.geometry = geometry
        return result
    }

    static func array(_ value: JSONValue, _ what: String) throws -> [JSONValue] {
        guard case .array(let a) = value else { throw RegionGeometryError(.invalidGeoJSON, "\(what) must be an array") }
        return a
    }

    static func polygon(_ value: JSONValue) throws -> [[Coordinate]] {
        try array(value, "polygon coordinates").map { try array($0, "a ring").map(position) }
    }

    /// A GeoJSON position: [longitude, latitude, (altitude)] — longitude first.
    static func position(_ value: JSONValue) throws -> Coordinate {
        let numbers = try array(value, "a position").compactMap(\.doubleValue)
        guard numbers.count >= 2, case .array(let raw) = value, raw.count == numbers.count else {
            throw RegionGeometryError(.invalidGeoJSON, "a position must be [longitude, latitude] numbers")
        }
        return Coordinate(latitude: numbers[1], longitude: numbers[0])
    }
}
