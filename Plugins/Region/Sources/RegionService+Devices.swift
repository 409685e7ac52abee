import LocusConditions
import LocusCore

/// One state per device (`per_device: true`): the commands that name a device.
extension RegionService {
    /// `device=` of a command: required per device, refused otherwise.
    func commandDevice(_ args: inout [String: JSONValue], required: Bool) throws -> String {
        try DeviceArgument.take(&args, perDevice: monitor.perDevice, required: required, service: id, kind: "region")
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
