import LocusConditions
import LocusCore

/// One state per device (`per_device: true`): the commands that name a device.
extension BeaconService {
    /// `device=` of a command: required per device (when `required`), refused otherwise.
    func commandDevice(_ args: inout [String: JSONValue], required: Bool) throws -> String {
        try DeviceArgument.take(&args, perDevice: perDevice, required: required, service: id, kind: "beacon")
    }

    /// The monitor a command looks at: the one device's; per device, `device`'s (the conditions
    /// only, when no device is named).
    func monitor(of device: String) throws -> BeaconMonitor {
        guard perDevice, !device.isEmpty else { return monitor }
        guard let m = devices[device] else {
            throw ServiceCommandError("no device '\(device)' seen by '\(id)' (a device appears with its first advertisement that matches a condition); see locus ctl beacon devices")
        }
        return m
    }

    /// Per condition, how many devices satisfy it.
    func satisfiedCounts() -> [String: Int] {
        var counts: [String: Int] = [:]
        for m in devices.values { for cid in m.ids where m.record(cid)?.state == .satisfied { counts[cid, default: 0] += 1 } }
        return counts
    }

    /// `beacon.devices`: devices seen, sorted, with the conditions each satisfies.
    func devicesReply(_ args: [String: JSONValue]) throws -> JSONValue {
        guard perDevice else { throw ServiceCommandError("'\(id)' watches one device (per_device is off)") }
        var limit = 1000
        for (k, v) in args {
            guard k == "limit" else { throw ServiceCommandError("unknown argument '\(k)'; beacon devices takes limit") }
            guard let n = v.doubleValue, n >= 0, n == n.rounded() else { throw ServiceCommandError("limit must be a whole number ≥ 0") }
            limit = Int(n)
        }
        let all = devices.keys.sorted()
        var items: [JSONValue] = []
        for device in all.prefix(limit) {
            let m = devices[device]!
            let satisfied = m.ids.filter { m.record($0)?.state == .satisfied }
            items.append(.object(["device": .string(device), "satisfied": .array(satisfied.map { .string($0) })]))
        }
        return .object(["count": .number(Double(all.count)), "devices": .array(items), "truncated": .bool(all.count > items.count)])
    }
}
