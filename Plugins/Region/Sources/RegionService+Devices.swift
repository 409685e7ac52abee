import LocusCore
import LocusStore

/// One state per device (`per_device: true`): restoring it, and the commands that name a device.
extension RegionService {
    /// Puts the restored conditions in the monitor, then each stored device with the records
    /// that still match their condition. Conditions whose stored fingerprint is missing or
    /// different are new to every device (they start `unknown`). Returns the number of device
    /// records restored; adds deletions of stale rows to `changes`.
    mutating func restoreDevices(_ restored: RestoredConditions<RegionCondition, ConditionRecord>, store: ServiceStateStore,
                                 changes: inout StateChanges) throws -> Int {
        var newConditions = Set<String>()
        for (c, template) in restored.conditions {
            monitor.put(c)
            if template?.fingerprint != c.fingerprint { newConditions.insert(c.id) }
        }
        var byDevice: [String: [String: ConditionRecord]] = [:]
        for (key, value) in try store.records(in: "device_state") {
            guard let slash = key.lastIndex(of: "/"), let r = ConditionRecord(json: value) else {
                changes.delete("device_state", key: key)
                continue
            }
            let device = String(key[..<slash]), cid = String(key[key.index(after: slash)...])
            guard monitor.condition(cid)?.fingerprint == r.fingerprint, !newConditions.contains(cid) else {
                changes.delete("device_state", key: key)
                continue
            }
            byDevice[device, default: [:]][cid] = r
        }
        var count = 0
        func time(_ value: JSONValue, _ key: String) -> EventTime? {
            value[key]?.doubleValue.map { EventTime(milliseconds: Int64($0)) }
        }
        for (device, value) in try store.records(in: "device") {
            let records = byDevice.removeValue(forKey: device) ?? [:]
            let last = time(value, "last_fix_time")
            monitor.restoreDevice(device, firstFixTime: time(value, "first_fix_time"), lastFixTime: last,
                                  records: records, newConditions: newConditions)
            if let last { processedThrough[device] = last }
            count += records.count
        }
        // Records of a device whose row is missing cannot be placed in time: start over.
        for (device, records) in byDevice { for cid in records.keys { changes.delete("device_state", key: device + "/" + cid) } }
        return count
    }

    /// `device=` of a command: required per device, refused otherwise.
    func commandDevice(_ args: inout [String: JSONValue], required: Bool) throws -> String {
        let raw = args.removeValue(forKey: "device")
        guard monitor.perDevice else {
            if raw != nil { throw ServiceCommandError("device= is for a service with per_device: true; '\(id)' watches one device") }
            return ""
        }
        guard let raw else {
            if required { throw ServiceCommandError("'\(id)' keeps one state per device: give device=… (see locus ctl region devices)") }
            return ""
        }
        guard let device = raw.stringValue, !device.isEmpty else { throw ServiceCommandError("device must be a device id") }
        return device
    }

    /// `region.devices`: devices seen, sorted, with the conditions each is inside.
    func devicesReply(_ args: [String: JSONValue]) throws -> JSONValue {
        guard monitor.perDevice else { throw ServiceCommandError("'\(id)' watches one device (per_device is off)") }
        var limit = 1000
        for (k, v) in args {
            guard k == "limit" else { throw ServiceCommandError("unknown argument '\(k)'; region devices takes limit") }
            guard let n = v.doubleValue, n >= 0, n == n.rounded() else { throw ServiceCommandError("limit must be a whole number ≥ 0") }
            limit = Int(n)
        }
        let all = monitor.deviceIDs
        var items: [JSONValue] = []
        for device in all.prefix(limit) {
            let inside = monitor.ids(satisfiedBy: device)
            var o: [String: JSONValue] = ["device": .string(device), "inside": .array(inside.map { .string($0) })]
            if let t = monitor.lastFixTime(device: device) { o["last_fix_time"] = .string(t.iso8601) }
            items.append(.object(o))
        }
        return .object(["count": .number(Double(all.count)), "devices": .array(items), "truncated": .bool(all.count > items.count)])
    }
}
