import LocusConditions
import LocusCore

/// One state per device (`per_device: true`): the commands that name a device.
extension RegionService {
    /// `region.devices`: devices seen, sorted, with the conditions each is inside.
    func devicesReply(_ args: [String: JSONValue]) throws -> JSONValue {
        let limit = try rules.devicesLimit(args)
        return ConditionCommands.devicesReply(monitor.deviceIDs, limit: limit) { device in
            var o: [String: JSONValue] = ["device": .string(device), "inside": .array(monitor.ids(satisfiedBy: device).map { .string($0) })]
            if let t = monitor.lastFixTime(device: device) { o["last_fix_time"] = .string(t.iso8601) }
            return .object(o)
        }
    }
}
