import LocusConditions
import LocusCore

/// One state per device (`per_device: true`): the commands that name a device.
extension BeaconService {
    /// Per device: refuses a `device` not seen (one device, or no device named: nothing to check).
    func requireDevice(_ device: String) throws {
        guard perDevice, !device.isEmpty, !monitor.hasDevice(device) else { return }
        throw ServiceCommandError("no device '\(device)' seen by '\(id)' (a device appears with its first advertisement that matches a condition); see locus ctl beacon devices")
    }

    /// `beacon.devices`: devices seen, sorted, with the conditions each satisfies.
    func devicesReply(_ args: [String: JSONValue]) throws -> JSONValue {
        let limit = try rules.devicesLimit(args)
        return ConditionCommands.devicesReply(monitor.deviceIDs, limit: limit) { device in
            .object(["device": .string(device), "satisfied": .array(monitor.ids(satisfiedBy: device).map { .string($0) })])
        }
    }
}
