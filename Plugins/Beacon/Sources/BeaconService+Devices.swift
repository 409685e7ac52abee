import LocusConditions
import LocusCore

/// One state per device (`per_device: true`): the commands that name a device.
extension BeaconService {
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
        let limit = try rules.devicesLimit(args)
        return ConditionCommands.devicesReply(devices.keys.sorted(), limit: limit) { device in
            let m = devices[device]!
            return .object(["device": .string(device), "satisfied": .array(m.ids.filter { m.record($0)?.state == .satisfied }.map { .string($0) })])
        }
    }
}
