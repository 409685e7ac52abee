import Foundation
import LocusConditions
import LocusCore
import LocusRegions

extension RegionService {
    public mutating func handle(command: String, arguments: JSONValue, output: inout ServiceOutput) throws -> JSONValue {
        loadIfNeeded()
        announceConditionsIfDue(at: commandTime, output: &output)
        guard case .object(var args) = arguments else { throw ServiceCommandError("arguments must be an object") }
        switch command {
        case "region.add":
            let assuming = try Self.assuming(args.removeValue(forKey: "assuming"))
            let condition: RegionCondition
            do {
                condition = try RegionCondition(definition: .object(args), origin: .runtime)
            } catch let e as RegionGeometryError {
                throw ServiceCommandError("region not added: \(e.description)")
            }
            if let problem = eventSizeProblem(condition) { throw ServiceCommandError("region not added: \(problem)") }
            if let existing = monitor.condition(condition.id) {
                try rules.requireRuntime(condition.id, origin: existing.origin, action: "change")
            }
            let time = commandTime
            // The runtime commits the change with the command's events before it replies.
            monitor.put(condition, assuming: assuming)
            pendingRecords[Self.conditionKey(condition.id)] = .some(condition.definition)
            changedDefinition(condition.id, at: time, output: &output)
            // Per device there is no one state to show: `region record id=… device=…` shows one.
            if !monitor.perDevice { try emitSnapshot(condition.id, device: "", at: time, output: &output) }
            return try record(condition.id, device: "")
        case "region.remove":
            let rid = try rules.id(args)
            guard let existing = monitor.condition(rid) else { throw rules.unknown(rid) }
            try rules.requireRuntime(rid, origin: existing.origin, action: "remove")
            monitor.remove(rid)
            pendingRecords[Self.conditionKey(rid)] = .some(nil)
            changedDefinition(rid, at: commandTime, output: &output)
            return .object(["removed": .string(rid)])
        case "region.list":
            let query = try rules.listQuery(args)
            // Per device without device=: each condition with the number of devices inside.
            return rules.listReply(query, ids: monitor.ids, arrayKey: "regions", countKey: "devices_inside",
                                      counts: query.summary ? monitor.satisfiedCounts() : [:]) { rid in
                guard let r = monitor.record(rid, device: query.device), let c = monitor.condition(rid) else { return nil }
                return (c.origin, r.state)
            }
        case "region.record":
            let device = try rules.device(&args, required: true)
            let rid = try rules.id(args)
            guard monitor.condition(rid) != nil else { throw rules.unknown(rid) }
            try emitSnapshot(rid, device: device, at: commandTime, output: &output)
            return try record(rid, device: device)
        case "region.devices":
            return try devicesReply(args)
        default:
            throw rules.notAnswered(command)
        }
    }

    /// The rules and wording region shares with beacon.
    var rules: ConditionCommands {
        ConditionCommands(kind: "region", noun: "region", configKey: "regions", service: id, perDevice: monitor.perDevice)
    }

    /// Events of a command or file change: at the last message's time, or before any message
    /// at the time the runtime took it (`commandArrives`).
    var commandTime: EventTime {
        lastMessageTime ?? arrivalTime ?? EventTime(milliseconds: 0)
    }

    public mutating func commandArrives(at time: EventTime) { arrivalTime = time }

    /// The reply of `region record` (and `add`): per device without a device, the definition only.
    func record(_ rid: String, device: String) throws -> JSONValue {
        guard let c = monitor.condition(rid), let r = monitor.record(rid, device: device) else { throw ServiceCommandError("no region '\(rid)'") }
        return rules.recordReply(definition: c.definition, device: device, devices: monitor.deviceCount, record: r.recordJSON)
    }

    mutating func emitSnapshot(_ rid: String, device: String, at time: EventTime, output: inout ServiceOutput) throws {
        guard let body = monitor.snapshot(rid, device: device) else { return }
        output.emit(RegionStateSnapshot(body), topic: RegionStateKind.topicPrefix + rid + (body.device.map { "." + $0 } ?? ""), time: time)
    }

    static func assuming(_ value: JSONValue?) throws -> RegionState? {
        guard let value else { return nil }
        guard let text = value.stringValue, let s = RegionState(rawValue: text), s != .unknown else {
            throw ServiceCommandError("assuming must be satisfied or unsatisfied")
        }
        return s
    }
}
