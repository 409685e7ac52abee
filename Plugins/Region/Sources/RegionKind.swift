import LocusConditions
import LocusRegions

/// What a region monitor keeps once for all devices: the hysteresis and the spatial index of
/// the conditions' boxes, each grown by `max_accuracy + min_distance` so that a condition the
/// index does not return for a usable fix is decisively outside.
struct RegionKind: ConditionKind {
    static let eventPrefix = "region"

    let hysteresis: RegionHysteresis
    /// A class: copies of a monitor share it (a monitor is copied only to be looked at).
    let index = RegionIndex<String>()

    init(hysteresis: RegionHysteresis) { self.hysteresis = hysteresis }

    mutating func put(_ condition: RegionCondition, replacing old: RegionCondition?) {
        index.insert(condition.id, condition.shape.boundingBox.expanded(byMetres: hysteresis.maxAccuracy + hysteresis.minDistance))
    }

    mutating func remove(_ condition: RegionCondition) { index.remove(condition.id) }
}
