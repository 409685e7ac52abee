/// What a `ConditionMonitor` keeps about one device for one kind of condition: the device's
/// records (its state of each condition) and whatever else the kind needs to decide them (a
/// region: the last fix and the conditions every fix must check; a beacon: deadlines and
/// ranging filters). The conditions themselves are the monitor's, held once for all devices.
///
/// An implementer changes records only through `ConditionRecording`'s machine, and notes what
/// it changed for `takeChanges()`: the monitor asks `hasChanges` after every change it makes
/// through `ConditionMonitor.withDevice` to know which devices to hand the service to store.
public protocol ConditionDevice {
    associatedtype Kind: ConditionKind
    associatedtype Record: ConditionRecording
    /// What changed since the last `takeChanges()`, as the service stores it.
    associatedtype Changes

    /// A device seen for the first time, given the monitor's conditions by id: a kind whose
    /// records are sparse starts empty; one with a record per condition makes them here.
    init(monitoring conditions: [String: Kind.Condition], perDevice: Bool)

    /// This device's record of `condition`: stored, or implied when the device stores none.
    func record(for condition: Kind.Condition) -> Record
    /// The records the device stores, in no order. An implied record is never `satisfied`:
    /// a device inside a condition stores its record.
    func forEachStoredRecord(_ body: (String, Record) -> Void)
    var storedRecordCount: Int { get }

    /// `condition` was added, or replaces `old` (the same id): the device's record starts as
    /// the kind's rules say (kept when what satisfies it is unchanged, else from `assuming`,
    /// else `unknown`).
    mutating func put(_ condition: Kind.Condition, replacing old: Kind.Condition?, assuming: ConditionState?, perDevice: Bool)
    /// The condition `id` is gone: its record too.
    mutating func remove(_ id: String)

    /// Something to store changed since the last `takeChanges()`.
    var hasChanges: Bool { get }
    mutating func takeChanges() -> Changes
}
