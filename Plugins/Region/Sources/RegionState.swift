import LocusConditions

/// A region's state: the one state machine of every condition (`ConditionState`), inside
/// (`satisfied`) or outside (`unsatisfied`).
public typealias RegionState = ConditionState
