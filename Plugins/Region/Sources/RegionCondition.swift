import LocusConditions
import LocusCore
import LocusRegions

/// One monitored region, like a `CLMonitor` condition: a shape, what to report, and the
/// user's properties echoed in every event.
public struct RegionCondition: Sendable, Equatable, MonitoredCondition {
    /// Lower-case topic segment: events go to `region.enter.<id>` and so on.
    public var id: String
    /// The GeoJSON geometry as defined (a `Point` for circles), kept for records and the database.
    public var geometry: JSONValue
    /// Metres, for circles.
    public var radius: Double?
    public var shape: RegionShape
    public var notifyOnEntry: Bool
    public var notifyOnExit: Bool
    /// Seconds inside before `region.dwell`; nil for none.
    public var dwell: Double?
    public var properties: [String: JSONValue]
    public var origin: ConditionOrigin

    /// Option keys a condition takes besides its geometry, in config, GeoJSON properties and `region add`.
    static let optionKeys: Set<String> = ["notify_on_entry", "notify_on_exit", "dwell", "properties"]

    public init(id: String, geometry: JSONValue, radius: Double? = nil, notifyOnEntry: Bool = true,
                notifyOnExit: Bool = true, dwell: Double? = nil, properties: [String: JSONValue] = [:],
                origin: ConditionOrigin) throws {
        guard Topic.isValidSegment(id) else {
            throw RegionGeometryError(.invalidGeoJSON, "id \"\(id)\" cannot be a topic segment: use lower-case letters, digits, _ and - (events go to region.enter.<id>)", featureID: id, key: "id")
        }
        if let dwell, !(dwell > 0 && dwell.isFinite) {
            throw RegionGeometryError(.invalidGeoJSON, "dwell must be a number of seconds above 0, found \(dwell)", featureID: id, key: "dwell")
        }
        self.id = id
        self.geometry = geometry
        self.radius = radius
        do {
            self.shape = try GeoJSONRegionLoader.shape(geometry: geometry, radius: radius)
        } catch var e as RegionGeometryError {
            e.featureID = id
            throw e
        }
        self.notifyOnEntry = notifyOnEntry
        self.notifyOnExit = notifyOnExit
        self.dwell = dwell
        self.properties = properties
        self.origin = origin
    }

    /// A circle from its centre and radius.
    public init(id: String, center: Coordinate, radius: Double, notifyOnEntry: Bool = true, notifyOnExit: Bool = true,
                dwell: Double? = nil, properties: [String: JSONValue] = [:], origin: ConditionOrigin) throws {
        try self.init(id: id, geometry: .object(["type": .string("Point"),
                                                 "coordinates": .array([.number(center.longitude), .number(center.latitude)])]),
                      radius: radius, notifyOnEntry: notifyOnEntry, notifyOnExit: notifyOnExit, dwell: dwell,
                      properties: properties, origin: origin)
    }

    /// What identifies the shape: a condition whose fingerprint changed (config edited, file
    /// reloaded) starts again from `unknown`, since its old state says nothing about the new shape.
    public var fingerprint: String {
        var o: [String: JSONValue] = ["geometry": geometry]
        if let radius { o["radius"] = .number(radius) }
        return String(decoding: JSONValue.object(o).encoded(), as: UTF8.self)
    }

    /// The definition as stored and as `region record` shows it.
    public var definition: JSONValue {
        var o: [String: JSONValue] = [
            "id": .string(id), "geometry": geometry, "notify_on_entry": .bool(notifyOnEntry),
            "notify_on_exit": .bool(notifyOnExit), "origin": .string(origin.rawValue),
        ]
        if let radius { o["radius"] = .number(radius) }
        if let dwell { o["dwell"] = .number(dwell) }
        if !properties.isEmpty { o["properties"] = .object(properties) }
        return .object(o)
    }

    /// Reads a definition from the database or a control request: `geometry` (+ `radius`), or
    /// `lat`/`lon`/`radius` for a circle, and the options.
    public init(definition d: JSONValue, origin: ConditionOrigin) throws {
        guard case .object(let o) = d else {
            throw RegionGeometryError(.invalidGeoJSON, "a region definition must be an object")
        }
        guard let id = o["id"]?.stringValue else {
            throw RegionGeometryError(.missingID, "needs an \"id\" string", key: o["id"] == nil ? nil : "id")
        }
        func bool(_ key: String) throws -> Bool? {
            guard let v = o[key] else { return nil }
            guard case .bool(let b) = v else {
                throw RegionGeometryError(.invalidGeoJSON, "\(key) must be true or false", featureID: id, key: key)
            }
            return b
        }
        func number(_ key: String) throws -> Double? {
            guard let v = o[key] else { return nil }
            guard let n = v.doubleValue else {
                throw RegionGeometryError(.invalidGeoJSON, "\(key) must be a number", featureID: id, key: key)
            }
            return n
        }
        var properties: [String: JSONValue] = [:]
        if let p = o["properties"] {
            guard case .object(let po) = p else {
                throw RegionGeometryError(.invalidGeoJSON, "properties must be an object", featureID: id, key: "properties")
            }
            properties = po
        }
        let radius = try number("radius")
        let geometry: JSONValue
        if let g = o["geometry"] {
            if o["lat"] != nil || o["lon"] != nil {
                throw RegionGeometryError(.invalidGeoJSON, "give either geometry or lat/lon, not both", featureID: id)
            }
            geometry = g
        } else if let lat = try number("lat"), let lon = try number("lon") {
            guard radius != nil else {
                throw RegionGeometryError(.invalidCircle, "a circle needs radius (metres) with lat and lon", featureID: id)
            }
            geometry = .object(["type": .string("Point"), "coordinates": .array([.number(lon), .number(lat)])])
        } else {
            throw RegionGeometryError(.invalidGeoJSON, "needs lat, lon and radius for a circle, or a GeoJSON geometry (Polygon, MultiPolygon)", featureID: id)
        }
        try self.init(id: id, geometry: geometry, radius: radius, notifyOnEntry: try bool("notify_on_entry") ?? true,
                      notifyOnExit: try bool("notify_on_exit") ?? true, dwell: try number("dwell"),
                      properties: properties, origin: origin)
    }
}
