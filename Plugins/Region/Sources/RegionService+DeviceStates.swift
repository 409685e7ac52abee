import LocusCore

/// Per device (`per_device`), a device's state moves between servers with its partition
/// (`DeviceStateTransfer`): its fix times and last fix, and its stored records of conditions,
/// as one JSON object `{"times": …, "records": {<condition>: …}}`. Conditions are shared and
/// come from the configuration, so they do not move; a record of a condition this server does
/// not have (or has with another shape) is dropped as at a restart.
extension RegionService: DeviceStateTransfer {
    public var movesDeviceState: Bool { monitor.perDevice && configuration.persist }

    public func deviceStates(where isIncluded: (String) -> Bool) throws -> [String: [UInt8]] {
        var out: [String: [UInt8]] = [:]
        for device in monitor.deviceIDs where isIncluded(device) {
            var records: [String: JSONValue] = [:]
            monitor.devices[device]?.forEachStoredRecord { rid, r in
                records[rid] = try? JSONValue.read(r.encoded(device: device, region: rid))
            }
            let times = try JSONValue.read(monitor.times(device: device).encoded)
            out[device] = JSONValue.object(["times": times, "records": .object(records)]).encoded()
        }
        return out
    }

    public mutating func replaceDeviceStates(where isIncluded: (String) -> Bool, with states: [String: [UInt8]]) throws {
        loadIfNeeded()
        var decoded: [String: (times: RegionDeviceState.Times, records: [String: ConditionRecord])] = [:]
        for (device, bytes) in states {
            guard !device.isEmpty, let value = try? JSONValue.read(bytes), let times = value["times"],
                  case .object(let raw)? = value["records"] else {
                throw ServiceStateError("region '\(id)': the moved state of device '\(device)' does not read")
            }
            var records: [String: ConditionRecord] = [:]
            for (rid, json) in raw {
                guard let r = ConditionRecord(json: json) else {
                    throw ServiceStateError("region '\(id)': the moved record of '\(rid)' for device '\(device)' does not read")
                }
                records[rid] = r
            }
            decoded[device] = (RegionDeviceState.Times(json: times), records)
        }
        for device in monitor.deviceIDs where isIncluded(device) {
            monitor.devices[device]?.forEachStoredRecord { rid, _ in pendingRecords[Self.recordKey(device: device, rid)] = .some(nil) }
            pendingRecords[Self.deviceKey(device)] = .some(nil)
            monitor.forget(device: device)
        }
        for (device, state) in decoded.sorted(by: { $0.key < $1.key }) {
            let dropped = Set(monitor.restore(device: device, times: state.times, records: state.records, newConditions: []))
            for (rid, r) in state.records where !dropped.contains(rid) {
                pendingRecords[Self.recordKey(device: device, rid)] = .some(try JSONValue.read(r.encoded(device: device, region: rid)))
            }
            pendingRecords[Self.deviceKey(device)] = .some(try JSONValue.read(state.times.encoded))
        }
    }
}
