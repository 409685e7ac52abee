import Foundation
import LocusCore
import LocusRegions

/// Options of the `region` service. Distances in metres, durations in seconds of event time.
public struct RegionConfiguration: PluginConfiguration, Equatable {
    /// How far past the boundary the whole uncertainty circle must be for a fix to decide a side.
    public var minDistance: Double
    /// How long the device must be seen on the new side before a transition.
    public var minDuration: Double
    /// Fixes with a worse 1-sigma horizontal accuracy never change state.
    public var maxAccuracy: Double
    /// Fix sources to watch; empty watches all (as one device).
    public var sources: [String]
    /// Keep conditions and states in a database across restarts.
    public var persist: Bool
    /// Database path; nil for `<hub.state_directory>/region-<id>.sqlite`.
    public var database: String?
    /// GeoJSON FeatureCollection of further conditions, watched and reloaded when it changes.
    public var file: String?
    /// Seconds between checks of `file` for changes (wall clock, on clock ticks).
    public var fileCheckInterval: Double
    /// Conditions defined inline.
    public var regions: [RegionCondition]

    public static let keys: [ConfigKey] = [
        ConfigKey("regions", "list of regions", default: "[]", "Conditions: each has id, and center {lat, lon} with radius (metres), or geometry (a GeoJSON Polygon or MultiPolygon, [lon, lat] positions); optional notify_on_entry, notify_on_exit (default true), dwell (seconds inside before region.dwell), properties (echoed in events)."),
        ConfigKey("file", "string", default: "none", "GeoJSON FeatureCollection of more conditions (id and options in each feature's properties; a Point needs properties.radius). Watched: a changed file is reloaded; a file that fails to load keeps the previous conditions and logs the feature and reason."),
        ConfigKey("min_distance", "number", default: "10", "Metres the fix's whole uncertainty circle (h_accuracy) must be past the boundary to count as inside or outside. 10 m is about twice the 1-sigma error of a consumer GNSS fix in the open, so jitter of a receiver standing on the boundary never decides."),
        ConfigKey("min_duration", "number", default: "20", "Seconds of event time the device must be seen on the new side (since the last fix that did not place it there) before enter or exit; a single wild fix among 1 Hz fixes never transitions. 20 s is Core Location's documented order of magnitude and shorter than a walk across a small region."),
        ConfigKey("max_accuracy", "number", default: "100", "Metres: fixes with a worse h_accuracy never change state (a 2 km cell-tower fix cannot decide a 150 m fence). Fixes without h_accuracy count as exact."),
        ConfigKey("sources", "list of strings", default: "[]", "Fix sources to watch (obs.fix.<source>); empty watches all, as one device."),
        ConfigKey("persist", "boolean", default: "true", "Keep conditions added at runtime, states, pending transitions and unacknowledged events in an SQLite database, so a restart (even kill -9) publishes no duplicate and misses no transition. Off for locus replay in any case."),
        ConfigKey("database", "string", default: "<hub.state_directory>/region-<id>.sqlite", "Database file when persist is true."),
        ConfigKey("file_check_interval", "number", default: "2", "Seconds between checks of `file` for changes."),
    ]

    enum CodingKeys: String, CodingKey {
        case regions, file, sources, persist, database
        case minDistance = "min_distance"
        case minDuration = "min_duration"
        case maxAccuracy = "max_accuracy"
        case fileCheckInterval = "file_check_interval"
    }

    public init(regions: [RegionCondition] = [], file: String? = nil, minDistance: Double = 10, minDuration: Double = 20,
                maxAccuracy: Double = 100, sources: [String] = [], persist: Bool = true, database: String? = nil,
                fileCheckInterval: Double = 2) {
        self.regions = regions
        self.file = file
        self.minDistance = minDistance
        self.minDuration = minDuration
        self.maxAccuracy = maxAccuracy
        self.sources = sources
        self.persist = persist
        self.database = database
        self.fileCheckInterval = fileCheckInterval
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        minDistance = try c.decodeIfPresent(Double.self, forKey: .minDistance) ?? minDistance
        guard minDistance >= 0, minDistance.isFinite else {
            throw ConfigValueError(key: "min_distance", "min_distance must be 0 m or more, found \(minDistance)")
        }
        minDuration = try c.decodeIfPresent(Double.self, forKey: .minDuration) ?? minDuration
        guard minDuration >= 0, minDuration.isFinite else {
            throw ConfigValueError(key: "min_duration", "min_duration must be 0 s or more, found \(minDuration)")
        }
        maxAccuracy = try c.decodeIfPresent(Double.self, forKey: .maxAccuracy) ?? maxAccuracy
        guard maxAccuracy > 0, maxAccuracy.isFinite else {
            throw ConfigValueError(key: "max_accuracy", "max_accuracy must be above 0 m, found \(maxAccuracy)")
        }
        sources = try c.decodeIfPresent([String].self, forKey: .sources) ?? []
        for s in sources where !Topic.isValidSegment(s) {
            throw ConfigValueError(key: "sources", "'\(s)' in sources is not a source id: use lower-case letters, digits, _ and -")
        }
        persist = try c.decodeIfPresent(Bool.self, forKey: .persist) ?? persist
        database = try c.decodeIfPresent(String.self, forKey: .database)
        file = try c.decodeIfPresent(String.self, forKey: .file)
        fileCheckInterval = try c.decodeIfPresent(Double.self, forKey: .fileCheckInterval) ?? fileCheckInterval
        guard fileCheckInterval > 0, fileCheckInterval.isFinite else {
            throw ConfigValueError(key: "file_check_interval", "file_check_interval must be above 0 s, found \(fileCheckInterval)")
        }
        let raw = try c.decodeIfPresent([JSONValue].self, forKey: .regions) ?? []
        var seen = Set<String>()
        for (index, entry) in raw.enumerated() {
            let condition: RegionCondition
            do {
                condition = try RegionCondition(configEntry: entry)
            } catch let e as RegionGeometryError {
                throw ConfigValueError(key: "regions", "regions[\(index)]\(e.featureID.map { " (id \"\($0)\")" } ?? ""): \(e.reason)")
            }
            guard seen.insert(condition.id).inserted else {
                throw ConfigValueError(key: "regions", "regions[\(index)]: id \"\(condition.id)\" is used twice")
            }
            regions.append(condition)
        }
    }
}

extension RegionCondition {
    /// One entry of `regions:`: `center: {lat, lon}` and `radius`, or `geometry`, and the options.
    init(configEntry entry: JSONValue) throws {
        guard case .object(var o) = entry else {
            throw RegionGeometryError(.invalidGeoJSON, "each region must be a mapping with id and center/radius or geometry")
        }
        let allowed = Set(["id", "center", "radius", "geometry"]).union(Self.optionKeys)
        if let unknown = o.keys.sorted().first(where: { !allowed.contains($0) }) {
            throw RegionGeometryError(.invalidGeoJSON, "unknown key '\(unknown)'; expected \(allowed.sorted().joined(separator: ", "))",
                                      featureID: o["id"]?.stringValue)
        }
        if let center = o.removeValue(forKey: "center") {
            guard let lat = center["lat"]?.doubleValue, let lon = center["lon"]?.doubleValue else {
                throw RegionGeometryError(.invalidCircle, "center must be {lat: <degrees>, lon: <degrees>}", featureID: o["id"]?.stringValue)
            }
            o["lat"] = .number(lat)
            o["lon"] = .number(lon)
        }
        try self.init(definition: .object(o), origin: .config)
    }
}
