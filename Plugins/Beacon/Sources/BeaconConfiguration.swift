import Foundation
import LocusCore

/// Options of the `beacon` service. Durations in seconds of event time, distances in metres,
/// RSSI in dBm.
public struct BeaconConfiguration: PluginConfiguration, Equatable {
    /// Conditions defined in config.
    public var conditions: [BeaconCondition]
    /// Seconds without a matching advertisement before exit (and before unknown becomes unsatisfied).
    public var exitTimeout: Double
    /// Seconds between `beacon.range` events of a satisfied ranging condition.
    public var rangeInterval: Double
    /// Seconds after which a beacon not heard drops out of ranging, and its filter restarts.
    public var rangeTimeout: Double
    public var proximity: ProximityModel
    public var filter: RSSIFilter.Parameters
    /// Calibrated 1 m power for frames that carry none, dBm.
    public var defaultMeasuredPower: Int
    /// Scanner sources to listen to (`obs.ble.<source>`); empty listens to all, as one receiver.
    public var sources: [String]
    public var persist: Bool
    /// Database path; nil for `<hub.state_directory>/beacon-<id>.sqlite`.
    public var database: String?

    public static let keys: [ConfigKey] = [
        ConfigKey("conditions", "list of conditions", default: "[]", "Each has id and one of: uuid (iBeacon proximity UUID) with optional major and then optional minor; altbeacon (hex prefix of the 20-byte AltBeacon id, 1 to 20 bytes); namespace (Eddystone-UID, 10 bytes hex) with optional instance (6 bytes hex). Absent fields are wildcards. Options: notify_on_entry, notify_on_exit (default true), ranging (default false), properties (echoed in events)."),
        ConfigKey("exit_timeout", "number", default: "30", "Seconds of event time without a matching advertisement before beacon.exit (and before an undecided condition becomes unsatisfied, silently). 30 s is what Core Location and the AltBeacon library use in practice: long enough to ride out the seconds-long gaps a scanner has when the phone or the body blocks the signal."),
        ConfigKey("range_interval", "number", default: "1", "Seconds between beacon.range events of a satisfied condition with ranging: true (Core Location ranges at 1 Hz)."),
        ConfigKey("range_timeout", "number", default: "5", "Seconds after which a beacon not heard leaves ranging lists, and its RSSI filter starts again when it is heard next (a stale estimate says nothing about where it is now)."),
        ConfigKey("path_loss_exponent", "number", default: "2.0", "n of the log-distance model d = 10^((measured_power − rssi)/(10·n)). 2.0 is free space. Indoors n is 2.5–3.5 at tens of metres, but the band boundaries (0.5 m, 3 m) lie within a few metres, where the path is mostly line of sight and measured exponents are near 2; a larger n would pull every far beacon in."),
        ConfigKey("immediate_distance", "number", default: "0.5", "Metres: below this a beacon is immediate (Core Location: within about half a metre)."),
        ConfigKey("near_distance", "number", default: "3", "Metres: below this (and not immediate) near, beyond it far (Core Location: one to three metres)."),
        ConfigKey("proximity_hysteresis", "number", default: "0.2", "Fraction (0 to 0.9) by which the smoothed distance must pass a band boundary before the band changes: 0.2 moves near→far above 3.6 m and far→near below 2.4 m. 20 % is about what 1.6 dB of RSSI means at n = 2, the residual wobble of the smoothed RSSI."),
        ConfigKey("rssi_process_noise", "number", default: "2", "Kalman filter: dB² per second the true mean RSSI may drift (walking at 1.4 m/s 5 m away changes it by about 2.4 dB/s at n = 2)."),
        ConfigKey("rssi_measurement_noise", "number", default: "36", "Kalman filter: variance of one RSSI sample around its mean, dB² (6 dB σ: log-normal shadowing of 2–4 dB plus multipath fading, as measured for BLE indoors)."),
        ConfigKey("rssi_gate", "number", default: "3", "Kalman filter: innovations are clipped to this many standard deviations, so one wild sample (a deep multipath null, a reflection) moves the estimate by a bounded amount; 3 costs nothing measurable on Rician fading, tighter gates slow the filter down on real changes."),
        ConfigKey("default_measured_power", "integer", default: "-59", "dBm at 1 m for frames without a calibrated power (the common iBeacon default)."),
        ConfigKey("sources", "list of strings", default: "[]", "Scanner sources to listen to (obs.ble.<source>); empty listens to all, as one receiver."),
        ConfigKey("persist", "boolean", default: "true", "Keep conditions added at runtime, states, refinements and unacknowledged events in an SQLite database, so a restart (even kill -9) neither repeats nor loses an enter or exit. Ranging filters are not kept. Off for locus replay in any case."),
        ConfigKey("database", "string", default: "<hub.state_directory>/beacon-<id>.sqlite", "Database file when persist is true."),
    ]

    enum CodingKeys: String, CodingKey, CaseIterable {
        case conditions, sources, persist, database
        case exitTimeout = "exit_timeout"
        case rangeInterval = "range_interval"
        case rangeTimeout = "range_timeout"
        case pathLossExponent = "path_loss_exponent"
        case immediateDistance = "immediate_distance"
        case nearDistance = "near_distance"
        case proximityHysteresis = "proximity_hysteresis"
        case rssiProcessNoise = "rssi_process_noise"
        case rssiMeasurementNoise = "rssi_measurement_noise"
        case rssiGate = "rssi_gate"
        case defaultMeasuredPower = "default_measured_power"
    }

    public init(conditions: [BeaconCondition] = [], exitTimeout: Double = 30, rangeInterval: Double = 1, rangeTimeout: Double = 5,
                proximity: ProximityModel = ProximityModel(), filter: RSSIFilter.Parameters = .init(),
                defaultMeasuredPower: Int = -59, sources: [String] = [], persist: Bool = true, database: String? = nil) {
        self.conditions = conditions
        self.exitTimeout = exitTimeout
        self.rangeInterval = rangeInterval
        self.rangeTimeout = rangeTimeout
        self.proximity = proximity
        self.filter = filter
        self.defaultMeasuredPower = defaultMeasuredPower
        self.sources = sources
        self.persist = persist
        self.database = database
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init()
        func number(_ key: CodingKeys, _ fallback: Double, _ valid: (Double) -> Bool, _ rule: String) throws -> Double {
            let v = try c.decodeIfPresent(Double.self, forKey: key) ?? fallback
            guard v.isFinite, valid(v) else { throw ConfigValueError(key: key.rawValue, "\(key.rawValue) must be \(rule), found \(v)") }
            return v
        }
        exitTimeout = try number(.exitTimeout, exitTimeout, { $0 > 0 }, "above 0 s")
        rangeInterval = try number(.rangeInterval, rangeInterval, { $0 >= 0.1 }, "0.1 s or more")
        rangeTimeout = try number(.rangeTimeout, rangeTimeout, { $0 > 0 }, "above 0 s")
        proximity.pathLossExponent = try number(.pathLossExponent, proximity.pathLossExponent, { $0 >= 1 && $0 <= 6 }, "from 1 to 6")
        proximity.immediateLimit = try number(.immediateDistance, proximity.immediateLimit, { $0 > 0 }, "above 0 m")
        proximity.nearLimit = try number(.nearDistance, proximity.nearLimit, { $0 > proximity.immediateLimit },
                                         "above immediate_distance (\(proximity.immediateLimit) m)")
        proximity.hysteresis = try number(.proximityHysteresis, proximity.hysteresis, { $0 >= 0 && $0 <= 0.9 }, "from 0 to 0.9")
        filter.processNoise = try number(.rssiProcessNoise, filter.processNoise, { $0 > 0 }, "above 0 dB²/s")
        filter.measurementNoise = try number(.rssiMeasurementNoise, filter.measurementNoise, { $0 > 0 }, "above 0 dB²")
        filter.gate = try number(.rssiGate, filter.gate, { $0 > 0 }, "above 0")
        defaultMeasuredPower = try c.decodeIfPresent(Int.self, forKey: .defaultMeasuredPower) ?? defaultMeasuredPower
        guard (-127...20).contains(defaultMeasuredPower) else {
            throw ConfigValueError(key: "default_measured_power", "default_measured_power must be from -127 to 20 dBm, found \(defaultMeasuredPower)")
        }
        sources = try c.decodeIfPresent([String].self, forKey: .sources) ?? []
        for s in sources where !Topic.isValidSegment(s) {
            throw ConfigValueError(key: "sources", "'\(s)' in sources is not a source id: use lower-case letters, digits, _ and -")
        }
        persist = try c.decodeIfPresent(Bool.self, forKey: .persist) ?? persist
        database = try c.decodeIfPresent(String.self, forKey: .database)
        let raw = try c.decodeIfPresent([JSONValue].self, forKey: .conditions) ?? []
        var seen = Set<String>()
        for (index, entry) in raw.enumerated() {
            let condition: BeaconCondition
            if entry["origin"] != nil {
                throw ConfigValueError(key: "conditions", "conditions[\(index)]: origin is not a key of a condition (it shows where one came from in beacon record)")
            }
            do {
                condition = try BeaconCondition(definition: entry, origin: .config)
            } catch let e as BeaconConditionError {
                throw ConfigValueError(key: "conditions", "conditions[\(index)]: \(e.description)")
            }
            guard seen.insert(condition.id).inserted else {
                throw ConfigValueError(key: "conditions", "conditions[\(index)]: id \"\(condition.id)\" is used twice")
            }
            conditions.append(condition)
        }
    }
}
