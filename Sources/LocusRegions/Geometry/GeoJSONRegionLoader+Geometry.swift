import LocusCore

extension GeoJSONRegionLoader {
    /// The shape of one GeoJSON geometry object (`{"type": "Polygon", "coordinates": …}`), as a
    /// feature with that geometry would load: `Polygon`, `MultiPolygon`, or `Point` with `radius`
    /// (metres) for a circle. For regions defined one at a time (config, control requests).
    /// - Throws: `RegionGeometryError` naming what is wrong.
    public static func shape(geometry: JSONValue, radius: Double? = nil) throws -> RegionShape {
        var properties: [String: JSONValue] = [:]
        if let radius { properties["radius"] = .number(radius) }
        let feature = JSONValue.object(["type": .string("Feature"), "geometry": geometry, "properties": .object(properties)])
        return try definition(feature, id: "").shape
    }
}
