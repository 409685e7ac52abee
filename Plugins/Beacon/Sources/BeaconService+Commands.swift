import Foundation
import LocusConditions
import LocusCore

extension BeaconService {
    public mutating func handle(command: String, arguments: JSONValue, output: inout ServiceOutput) throws -> JSONValue {
        loadIfNeeded()
        guard case .object(var args) = arguments else { throw ServiceCommandError("arguments must be an object") }
        switch command {
        case "beacon.add":
            if args["origin"] != nil { throw ServiceCommandError("beacon not added: origin is not an argument (conditions added here are runtime ones)") }
            let condition: BeaconCondition
            do {
                condition = try BeaconCondition(definition: .object(try Self.normalised(args)), origin: .runtime)
            } catch let e as BeaconConditionError {
                throw ServiceCommandError("beacon not added: \(e.description)")
            }
            if let existing = monitor.condition(condition.id) {
                try rules.requireRuntime(condition.id, origin: existing.origin, action: "change")
            }
            // The runtime commits the change with the command's events before it replies.
            putRuntime(condition)
            // Per device there is no one state to show: `beacon record id=… device=…` shows one.
            if !perDevice { emitSnapshot(condition.id, device: "", output: &output) }
            return try record(condition.id, device: "")
        case "beacon.remove":
            let cid = try rules.id(args)
            guard let existing = monitor.condition(cid) else { throw rules.unknown(cid) }
            try rules.requireRuntime(cid, origin: existing.origin, action: "remove")
            removeRuntime(cid)
            return .object(["removed": .string(cid)])
        case "beacon.list":
            let query = try rules.listQuery(args)
            try requireDevice(query.device)
            // Per device without device=: each condition with the number of devices satisfying it.
            return rules.listReply(query, ids: monitor.ids, arrayKey: "conditions", countKey: "devices_satisfied",
                                      counts: query.summary ? monitor.satisfiedCounts() : [:]) { cid in
                guard let r = monitor.record(cid, device: query.device), let c = monitor.condition(cid) else { return nil }
                return (c.origin, r.state)
            }
        case "beacon.record":
            let device = try rules.device(&args, required: true)
            let cid = try rules.id(args)
            guard monitor.condition(cid) != nil else { throw rules.unknown(cid) }
            emitSnapshot(cid, device: device, output: &output)
            return try record(cid, device: device)
        case "beacon.devices":
            return try devicesReply(args)
        default:
            throw rules.notAnswered(command)
        }
    }

    /// The rules and wording beacon shares with region.
    var rules: ConditionCommands {
        ConditionCommands(kind: "beacon", noun: "beacon condition", configKey: "conditions", service: id, perDevice: perDevice)
    }

    /// `locus ctl` sends what looks like a number as a number: a hex prefix or id made only of
    /// digits (`altbeacon=0102`) must still be read as text.
    static func normalised(_ args: [String: JSONValue]) throws -> [String: JSONValue] {
        var o = args
        for k in ["uuid", "altbeacon", "namespace", "instance"] {
            guard case .number(let n)? = o[k] else { continue }
            // Past 15 digits a double has already lost some of them: refuse rather than guess.
            guard n == n.rounded(), n >= 0, n < 1e15 else {
                throw ServiceCommandError("beacon not added: \(k) arrived as a number; quote it as a JSON string (\(k)='\"…\"')")
            }
            o[k] = .string(String(Int64(n)))
        }
        return o
    }

    /// Events of a command: at the last message's time, or before any message at the time the
    /// runtime took it (`commandArrives`).
    var commandTime: EventTime { lastMessageTime ?? arrivalTime ?? EventTime(milliseconds: 0) }

    public mutating func commandArrives(at time: EventTime) { arrivalTime = time }

    /// The reply of `beacon record` (and `add`): per device without a device, the definition only.
    func record(_ cid: String, device: String) throws -> JSONValue {
        try requireDevice(device)
        guard let c = monitor.condition(cid), let r = monitor.record(cid, device: device) else { throw ServiceCommandError("no beacon condition '\(cid)'") }
        return rules.recordReply(definition: c.definition, device: device, devices: monitor.deviceCount, record: r.recordJSON)
    }

    func emitSnapshot(_ cid: String, device: String, output: inout ServiceOutput) {
        guard (try? requireDevice(device)) != nil, let body = monitor.snapshot(cid, device: device) else { return }
        let suffix = perDevice ? "." + device : ""
        output.emit(BeaconStateSnapshot(body), topic: BeaconStateKind.topicPrefix + cid + suffix, time: commandTime)
    }
}
