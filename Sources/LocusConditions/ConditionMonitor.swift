/// One monitor for every kind of condition, as Core Location's `CLMonitor`: the conditions (held
/// once), each device's memory of them, adding and removing, the records' queries and what
/// changed for the runtime to store. What decides a side from an input is the kind's own, in
/// an extension of the monitor for its `Device` (`RegionMonitor.receive(_:device:)`,
/// `BeaconMonitor.receive(_:device:)`), working on one device at a time through `withDevice`;
/// every state change goes through `ConditionRecording`'s machine.
///
/// Devices: by default every input is the one device's (key `""`, there from the start). With
/// `perDevice` each device has its own memory, from its first input (the caller names it and
/// bounds how many there are).
public struct ConditionMonitor<Device: ConditionDevice> {
    public typealias Condition = Device.Kind.Condition

    public let monitorID: String
    /// One state per device (`per_device`): events name the device.
    public let perDevice: Bool
    // Stored as `@usableFromInline`, and every method `@inlinable`, so that the monitor is
    // specialised for its kind in the kind's module: a generic across modules otherwise runs
    // through witness tables, and each dictionary access copied a whole device's memory (its
    // value witness) — `takeChanges` alone was 8 % of a fleet server's CPU in retains.
    @usableFromInline var storedConditions: [String: Condition] = [:]
    @usableFromInline var storedKind: Device.Kind
    @usableFromInline var storedDevices: [String: Device] = [:]
    /// Devices with something to store since the last `takeChanges()`.
    @usableFromInline var changedDevices = Set<String>()

    @inlinable public var conditions: [String: Condition] { storedConditions }
    /// The kind's settings and index.
    @inlinable public var kind: Device.Kind { storedKind }
    @inlinable public var devices: [String: Device] { storedDevices }

    @inlinable public init(monitorID: String, kind: Device.Kind, perDevice: Bool = false) {
        self.monitorID = monitorID
        storedKind = kind
        self.perDevice = perDevice
        if !perDevice { storedDevices[""] = Device(monitoring: [:], perDevice: false) }
    }

    @inlinable public var count: Int { conditions.count }
    /// The conditions' ids, sorted.
    @inlinable public var ids: [String] { conditions.keys.sorted() }
    @inlinable public func condition(_ id: String) -> Condition? { conditions[id] }

    /// Per device: the devices seen, sorted (none with one device).
    @inlinable public var deviceIDs: [String] { perDevice ? devices.keys.sorted() : [] }
    @inlinable public var deviceCount: Int { perDevice ? devices.count : 0 }
    @inlinable public func hasDevice(_ device: String) -> Bool { storedDevices.index(forKey: device) != nil }

    /// `device`'s record of condition `id` (the only device's by default): stored, implied, or
    /// for a device not seen yet the record it would start from; nil when there is no such
    /// condition.
    @inlinable public func record(_ id: String, device: String = "") -> Device.Record? {
        guard let c = conditions[id] else { return nil }
        return devices[device]?.record(for: c) ?? Device.Record(fingerprint: c.fingerprint)
    }

    /// Records `device` stores (per device the sparse ones, with one device one per condition).
    @inlinable public func storedRecordCount(device: String = "") -> Int { devices[device]?.storedRecordCount ?? 0 }

    /// The conditions `device` satisfies, sorted.
    @inlinable public func ids(satisfiedBy device: String) -> [String] {
        var ids: [String] = []
        devices[device]?.forEachStoredRecord { id, r in if r.state == .satisfied && conditions[id] != nil { ids.append(id) } }
        return ids.sorted()
    }

    /// Per condition, how many devices satisfy it.
    @inlinable public func satisfiedCounts() -> [String: Int] {
        var counts: [String: Int] = [:]
        for d in devices.values {
            d.forEachStoredRecord { id, r in if r.state == .satisfied && conditions[id] != nil { counts[id, default: 0] += 1 } }
        }
        return counts
    }

    /// Adds `condition`, or replaces the one of its id, for every device (each by its kind's
    /// rule: `assuming` gives the state to start from, `locus ctl … add assuming=satisfied`).
    @inlinable public mutating func put(_ condition: Condition, assuming: ConditionState? = nil) {
        let old = storedConditions[condition.id]
        storedConditions[condition.id] = condition
        storedKind.put(condition, replacing: old)
        let perDevice = self.perDevice
        for key in Array(devices.keys) {
            withDevice(key) { d, _, _ in d.put(condition, replacing: old, assuming: assuming, perDevice: perDevice) }
        }
    }

    /// Removes condition `id` and every device's record of it.
    @inlinable public mutating func remove(_ id: String) {
        guard let old = storedConditions.removeValue(forKey: id) else { return }
        storedKind.remove(old)
        for key in Array(devices.keys) { withDevice(key) { d, _, _ in d.remove(id) } }
    }

    /// Forgets `device` (its state moved to another server): its next fix finds it new. The
    /// caller deletes what it stored of it.
    @inlinable public mutating func forget(device: String) {
        storedDevices[device] = nil
        changedDevices.remove(device)
    }

    /// Runs `body` on `device`'s memory in place (taken out of the table meanwhile, so that its
    /// records are not copied on write), with the conditions and the kind; a device not seen yet
    /// is made first (`Device.init(monitoring:perDevice:)`). Notes the device for
    /// `takeChanges()` if it has changes afterwards.
    @inlinable @discardableResult
    public mutating func withDevice<R>(_ device: String,
                                       _ body: (inout Device, _ conditions: [String: Condition], _ kind: inout Device.Kind) -> R) -> R {
        var d = storedDevices.removeValue(forKey: device) ?? Device(monitoring: storedConditions, perDevice: perDevice)
        let r = body(&d, storedConditions, &storedKind)
        if d.hasChanges { changedDevices.insert(device) }
        storedDevices[device] = d
        return r
    }

    /// Runs `body` on the kind's settings and index (an index may keep a cache).
    @inlinable
    public mutating func withKind<R>(_ body: (inout Device.Kind) -> R) -> R { body(&storedKind) }

    /// What each device changed (to store) since the last call, by device.
    @inlinable public mutating func takeChanges() -> [(device: String, changes: Device.Changes)] {
        var out: [(device: String, changes: Device.Changes)] = []
        for key in changedDevices.sorted() {
            guard var d = storedDevices.removeValue(forKey: key) else { continue }
            out.append((key, d.takeChanges()))
            storedDevices[key] = d
        }
        changedDevices.removeAll(keepingCapacity: true)
        return out
    }
}
