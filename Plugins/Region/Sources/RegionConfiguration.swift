import Foundation
import LocusConditions
import LocusCore
import LocusRegions

/// Options of the `region` service. Distances in metres, durations in seconds of event time.
public struct RegionConfiguration: DeclaredConfiguration {
    @Setting("regions", "Conditions: each has id, and center {lat, lon} with radius (metres), or geometry (a GeoJSON Polygon or MultiPolygon, [lon, lat] positions); optional notify_on_entry, notify_on_exit (default true), dwell (seconds inside before region.dwell), properties (echoed in events).")
    public var regionList: RegionConditionList = RegionConditionList(conditions: [])

    /// Conditions defined inline.
    public var regions: [RegionCondition] {
        get { regionList.conditions }
        set { regionList = RegionConditionList(conditions: newValue) }
    }

    /// GeoJSON FeatureCollection of further conditions, watched and reloaded when it changes.
    @Setting("file", "GeoJSON FeatureCollection of more conditions (id and options in each feature's properties; a Point needs properties.radius). Watched: a changed file is reloaded; a file that fails to load keeps the previous conditions and logs the feature and reason.")
    public var file: String? = nil

    /// How far past the boundary the whole uncertainty circle must be for a fix to decide a side.
    @Setting("min_distance", "Metres the fix's whole uncertainty circle (h_accuracy) must be past the boundary to count as inside or outside. 10 m is about twice the 1-sigma error of a consumer GNSS fix in the open, so jitter of a receiver standing on the boundary never decides.",
             check: .atLeast(0, unit: "m"))
    public var minDistance: Double = 10

    /// How long the device must be seen on the new side before a transition.
    @Setting("min_duration", "Seconds of event time the device must be seen on the new side (since the last fix that did not place it there) before enter or exit; a single wild fix among 1 Hz fixes never transitions. 20 s is Core Location's documented order of magnitude and shorter than a walk across a small region.",
             check: .atLeast(0, unit: "s"))
    public var minDuration: Double = 20

    /// Fixes with a worse 1-sigma horizontal accuracy never change state.
    @Setting("max_accuracy", "Metres: fixes with a worse h_accuracy never change state (a 2 km cell-tower fix cannot decide a 150 m fence). Fixes without h_accuracy count as exact.",
             check: .above(0, unit: "m"))
    public var maxAccuracy: Double = 100

    /// Fix sources to watch; empty watches all (as one device).
    @Setting("sources", "Fix sources to watch (obs.fix.<source>); empty watches all, as one device.", check: .sourceIds)
    public var sources: [String] = []

    /// Keep conditions added at runtime and states across restarts.
    @Setting("persist", "Keep conditions added at runtime, states and pending transitions across restarts (the runtime commits them with the events they cause, in <hub.state_directory>/services/<id>.sqlite), so a restart, even kill -9, publishes no duplicate and misses no transition. Off for locus replay in any case.")
    public var persist: Bool = true

    /// No longer used (the runtime keeps the state): a warning says so.
    @Setting("database", "No longer used: the runtime keeps this service's state in <hub.state_directory>/services/<id>.sqlite. A config that sets it starts with a warning.")
    public var database: String? = nil

    /// Publish each condition's definition as `region.condition.<id>`.
    @Setting("publish_conditions", "Publish each condition's definition (region.condition.<id>: GeoJSON geometry, radius, options, properties) when the service starts and whenever one is added, replaced or removed, for maps and OwnTracks consumers (the mqtt sink's format owntracks sends circles as waypoints).")
    public var publishConditions: Bool = false

    /// Publish `region.state.<id>` after each enter and exit.
    @Setting("state_on_transition", "Also publish region.state.<id> (the condition's new state, as region record shows it) right after each region.enter and region.exit, so that a retained MQTT topic or any last-value cache always holds each fence's present state.")
    public var stateOnTransition: Bool = false

    /// Seconds between checks of `file` for changes (wall clock, on clock ticks).
    @Setting("file_check_interval", "Seconds between checks of `file` for changes.", check: .above(0, unit: "s"))
    public var fileCheckInterval: Double = 2

    public init() {}
}

/// `regions:` in config: each entry a condition (`RegionCondition(configEntry:)`), ids unique.
public struct RegionConditionList: SettingValue {
    public var conditions: [RegionCondition]

    public static var settingType: String { "list of regions" }
    public var settingText: String { conditions.isEmpty ? "[]" : "\(conditions.count) regions" }

    public static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> RegionConditionList {
        let raw = try container.decode([JSONValue].self, forKey: key)
        // Every misspelt key of every entry, each at its own position, before any other check.
        var unknown: [UnknownConfigKeyError] = []
        for (index, entry) in raw.enumerated() {
            guard case .object(let o) = entry else { continue }
            unknown += UnknownConfigKeyError.check(o.keys, allowed: RegionCondition.configKeys, container: "regions.\(index)")
            if case .object(let center)? = o["center"] {
                unknown += UnknownConfigKeyError.check(center.keys, allowed: ["lat", "lon"], container: "regions.\(index).center")
            }
        }
        if unknown.count == 1 { throw unknown[0] }
        if unknown.count > 1 { throw SettingErrors(errors: unknown) }
        var seen = Set<String>()
        var conditions: [RegionCondition] = []
        for (index, entry) in raw.enumerated() {
            let condition: RegionCondition
            do {
                condition = try RegionCondition(configEntry: entry)
            } catch let e as RegionGeometryError {
                // At the wrong value when one key's is (`regions.0.radius`), else at the entry.
                throw ConfigValueError(key: "regions.\(index)" + (e.key.map { ".\($0)" } ?? ""),
                                       "regions[\(index)]\(e.featureID.map { " (id \"\($0)\")" } ?? ""): \(e.reason)")
            }
            guard seen.insert(condition.id).inserted else {
                throw ConfigValueError(key: "regions.\(index).id", "regions[\(index)]: id \"\(condition.id)\" is used twice")
            }
            conditions.append(condition)
        }
        return RegionConditionList(conditions: conditions)
    }
}

extension RegionCondition {
    /// The keys of an entry of `regions:`, in the order the docs give them.
    static let configKeys = ["id", "center", "radius", "geometry", "notify_on_entry", "notify_on_exit", "dwell", "properties"]

    /// One entry of `regions:`: `center: {lat, lon}` and `radius`, or `geometry`, and the options.
    /// Its keys were checked by `RegionConditionList.readSetting` (`configKeys`).
    init(configEntry entry: JSONValue) throws {
        guard case .object(var o) = entry else {
            throw RegionGeometryError(.invalidGeoJSON, "each region must be a mapping with id and center/radius or geometry")
        }
        if let center = o.removeValue(forKey: "center") {
            guard let lat = center["lat"]?.doubleValue, let lon = center["lon"]?.doubleValue else {
                // At the coordinate that is wrong when center is a mapping, else at center.
                let wrong = ["lat", "lon"].first { center[$0] != nil && center[$0]?.doubleValue == nil }
                let key = if case .object = center, let wrong { "center.\(wrong)" } else { "center" }
                throw RegionGeometryError(.invalidCircle, "center must be {lat: <degrees>, lon: <degrees>}", featureID: o["id"]?.stringValue,
                                          key: key)
            }
            o["lat"] = .number(lat)
            o["lon"] = .number(lon)
        }
        try self.init(definition: .object(o), origin: .config)
    }
}
