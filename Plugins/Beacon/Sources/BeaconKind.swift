import LocusConditions

/// What a beacon monitor keeps once for all devices: its settings and the index that finds the
/// conditions an identity satisfies.
struct BeaconKind: ConditionKind {
    static let eventPrefix = "beacon"

    let settings: BeaconSettings
    var index = BeaconConditionIndex()

    init(settings: BeaconSettings) { self.settings = settings }

    mutating func put(_ condition: BeaconCondition, replacing old: BeaconCondition?) {
        if let old { index.remove(old) }
        index.insert(condition)
    }

    mutating func remove(_ condition: BeaconCondition) { index.remove(condition) }
}
