import LocusConditions

/// A beacon condition's state: the one state machine of every condition (`ConditionState`), a
/// matching beacon heard within `exit_timeout` (`satisfied`) or not (`unsatisfied`).
public typealias BeaconState = ConditionState
