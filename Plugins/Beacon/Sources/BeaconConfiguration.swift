import Foundation
import LocusConditions
import LocusCore

/// Options of the `beacon` service. Durations in seconds of event time, distances in metres,
/// RSSI in dBm. Defaults are those of the models they configure (`BeaconSettings`,
/// `ProximityModel`, `RSSIFilter.Parameters`), not written again here.
public struct BeaconConfiguration: DeclaredConfiguration {
    private static let monitor = BeaconSettings()

    @Setting("conditions", "Each has id and one of: uuid (iBeacon proximity UUID) with optional major and then optional minor; altbeacon (hex prefix of the 20-byte AltBeacon id, 1 to 20 bytes); namespace (Eddystone-UID, 10 bytes hex) with optional instance (6 bytes hex). Absent fields are wildcards. Options: notify_on_entry, notify_on_exit (default true), ranging (default false), properties (echoed in events).")
    public var conditionList: BeaconConditionList = BeaconConditionList(conditions: [])

    /// Conditions defined in config.
    public var conditions: [BeaconCondition] {
        get { conditionList.conditions }
        set { conditionList = BeaconConditionList(conditions: newValue) }
    }

    /// Seconds without a matching advertisement before exit (and before unknown becomes unsatisfied).
    @Setting("exit_timeout", "Seconds of event time without a matching advertisement before beacon.exit (and before an undecided condition becomes unsatisfied, silently). 30 s is what Core Location and the AltBeacon library use in practice: long enough to ride out the seconds-long gaps a scanner has when the phone or the body blocks the signal.",
             check: .above(0, unit: "s"))
    public var exitTimeout: Double = monitor.exitTimeout

    /// Seconds between `beacon.range` events of a satisfied ranging condition.
    @Setting("range_interval", "Seconds between beacon.range events of a satisfied condition with ranging: true (Core Location ranges at 1 Hz).",
             check: .atLeast(0.1, unit: "s"))
    public var rangeInterval: Double = monitor.rangeInterval

    /// Seconds after which a beacon not heard drops out of ranging, and its filter restarts.
    @Setting("range_timeout", "Seconds after which a beacon not heard leaves ranging lists, and its RSSI filter starts again when it is heard next (a stale estimate says nothing about where it is now).",
             check: .above(0, unit: "s"))
    public var rangeTimeout: Double = monitor.rangeTimeout

    @Setting("path_loss_exponent", "n of the log-distance model d = 10^((measured_power − rssi)/(10·n)). 2.0 is free space. Indoors n is 2.5–3.5 at tens of metres, but the band boundaries (0.5 m, 3 m) lie within a few metres, where the path is mostly line of sight and measured exponents are near 2; a larger n would pull every far beacon in.",
             check: .within(1...6))
    public var pathLossExponent: Double = monitor.proximity.pathLossExponent

    @Setting("immediate_distance", "Metres: below this a beacon is immediate (Core Location: within about half a metre).", check: .above(0, unit: "m"))
    public var immediateDistance: Double = monitor.proximity.immediateLimit

    @Setting("near_distance", "Metres: below this (and not immediate) near, beyond it far (Core Location: one to three metres).", check: .above(0, unit: "m"))
    public var nearDistance: Double = monitor.proximity.nearLimit

    @Setting("proximity_hysteresis", "Fraction (0 to 0.9) by which the smoothed distance must pass a band boundary before the band changes: 0.2 moves near→far above 3.6 m and far→near below 2.4 m. 20 % is about what 1.6 dB of RSSI means at n = 2, the residual wobble of the smoothed RSSI.",
             check: .within(0...0.9))
    public var proximityHysteresis: Double = monitor.proximity.hysteresis

    @Setting("rssi_process_noise", "Kalman filter: dB² per second the true mean RSSI may drift (walking at 1.4 m/s 5 m away changes it by about 2.4 dB/s at n = 2).",
             check: .above(0, unit: "dB²/s"))
    public var rssiProcessNoise: Double = monitor.filter.processNoise

    @Setting("rssi_measurement_noise", "Kalman filter: variance of one RSSI sample around its mean, dB² (6 dB σ: log-normal shadowing of 2–4 dB plus multipath fading, as measured for BLE indoors).",
             check: .above(0, unit: "dB²"))
    public var rssiMeasurementNoise: Double = monitor.filter.measurementNoise

    @Setting("rssi_gate", "Kalman filter: innovations are clipped to this many standard deviations, so one wild sample (a deep multipath null, a reflection) moves the estimate by a bounded amount; 3 costs nothing measurable on Rician fading, tighter gates slow the filter down on real changes.",
             check: .above(0))
    public var rssiGate: Double = monitor.filter.gate

    /// Calibrated 1 m power for frames that carry none, dBm.
    @Setting("default_measured_power", "dBm at 1 m for frames without a calibrated power (the common iBeacon default).",
             check: SettingCheck { (-127...20).contains($0) ? nil : "must be from -127 to 20 dBm, found \($0)" })
    public var defaultMeasuredPower: Int = monitor.defaultMeasuredPower

    /// Scanner sources to listen to (`obs.ble.<source>`); empty listens to all, as one receiver.
    @Setting("sources", "Scanner sources to listen to (obs.ble.<source>); empty listens to all, as one receiver.", check: .sourceIds)
    public var sources: [String] = []

    @Setting("persist", "Keep conditions added at runtime and the monitor's state (records, deadlines, ranging filters) across restarts: the runtime commits it with the events it causes, in <hub.state_directory>/services/<id>.sqlite, so a restart (even kill -9) neither repeats nor loses an enter or exit. Off for locus replay in any case.")
    public var persist: Bool = true

    /// No longer used (the runtime keeps the state): a warning says so.
    @Setting("database", "No longer used: the runtime keeps this service's state in <hub.state_directory>/services/<id>.sqlite. A config that sets it starts with a warning.")
    public var database: String? = nil

    public init() {}

    public var proximity: ProximityModel {
        ProximityModel(pathLossExponent: pathLossExponent, immediateLimit: immediateDistance, nearLimit: nearDistance, hysteresis: proximityHysteresis)
    }

    public var filter: RSSIFilter.Parameters {
        RSSIFilter.Parameters(processNoise: rssiProcessNoise, measurementNoise: rssiMeasurementNoise, gate: rssiGate)
    }

    public func validate() throws {
        guard nearDistance > immediateDistance else {
            throw ConfigValueError(key: "near_distance",
                                   "near_distance must be above immediate_distance (\(immediateDistance.settingText) m), found \(nearDistance.settingText)")
        }
    }
}

/// `conditions:` in config: each a `BeaconCondition`, ids unique.
public struct BeaconConditionList: SettingValue {
    public var conditions: [BeaconCondition]

    public static var settingType: String { "list of conditions" }
    public var settingText: String { conditions.isEmpty ? "[]" : "\(conditions.count) conditions" }

    public static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> BeaconConditionList {
        let raw = try container.decode([JSONValue].self, forKey: key)
        // Every misspelt key of every condition, each at its own position, before any other check.
        var unknown: [UnknownConfigKeyError] = []
        for (index, entry) in raw.enumerated() {
            guard case .object(let o) = entry else { continue }
            // `origin` has a message of its own below.
            unknown += UnknownConfigKeyError.check(o.keys.filter { $0 != "origin" }, allowed: BeaconCondition.configKeys,
                                                   container: "conditions.\(index)")
        }
        if unknown.count == 1 { throw unknown[0] }
        if unknown.count > 1 { throw SettingErrors(errors: unknown) }
        var seen = Set<String>()
        var conditions: [BeaconCondition] = []
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
        return BeaconConditionList(conditions: conditions)
    }
}
