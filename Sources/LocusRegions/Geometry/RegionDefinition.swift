import LocusCore

/// One region as loaded from a GeoJSON Feature: its id, geometry and the feature's other
/// properties, kept uninterpreted for the region service (notify_on_entry and the like).
public struct RegionDefinition: Sendable, Equatable {
    /// The feature's `id`, or `properties.id` when the feature has none; numbers are written
    /// as integers when they are whole (`7`, not `7.0`).
    public var id: String
    public var shape: RegionShape
    /// `properties` without `id` and, for circles, without `radius` (both consumed here).
    public var properties: [String: JSONValue]
    /// The GeoJSON geometry object the shape was read from, when it came from GeoJSON.
    public var geometry: JSONValue?

    public init(id: String, shape: RegionShape, properties: [String: JSONValue] = [:]) {
        self.id = id
        self.shape = shape
        self.properties = properties
    }
}
