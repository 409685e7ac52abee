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
            if let existing = monitor.condition(condition.id), existing.origin != .runtime {
                throw ServiceCommandError("region '\(condition.id)' is defined in \(existing.origin == .config ? "config (regions:)" : "the region file"); change it there")
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
            let rid = try Self.id(args)
            guard let existing = monitor.condition(rid) else { throw ServiceCommandError("no region '\(rid)'; see locus ctl region list") }
            guard existing.origin == .runtime else {
                throw ServiceCommandError("region '\(rid)' is defined in \(existing.origin == .config ? "config (regions:)" : "the region file"); remove it there")
            }
            monitor.remove(rid)
            pendingRecords[Self.conditionKey(rid)] = .some(nil)
            changedDefinition(rid, at: commandTime, output: &output)
            return .object(["removed": .string(rid)])
        case "region.list":
            let device = try commandDevice(&args, required: false)
            let perDeviceSummary = monitor.perDevice && device.isEmpty
            var filter: RegionState?
            if let raw = args["state"] {
                guard let text = raw.stringValue, let s = RegionState(rawValue: text) else {
                    throw ServiceCommandError("state must be unknown, satisfied or unsatisfied")
                }
                filter = s
            }
            var limit = 1000
            if let raw = args["limit"] {
                guard let n = raw.doubleValue, n >= 0, n == n.rounded() else { throw ServiceCommandError("limit must be a whole number ≥ 0") }
                limit = Int(n)
            }
            let unknownKeys = Set(args.keys).subtracting(["state", "limit"])
            if let k = unknownKeys.sorted().first {
                throw ServiceCommandError("unknown argument '\(k)'; region list takes state and limit\(monitor.perDevice ? " (and device)" : "")")
            }
            if perDeviceSummary && filter != nil {
                throw ServiceCommandError("'\(id)' keeps one state per device: state= needs device=…")
            }
            // Per device without device=: each condition with the number of devices inside.
            let inside = perDeviceSummary ? monitor.satisfiedCounts() : [:]
            var items: [JSONValue] = []
            var matched = 0
            for rid in monitor.ids {
                guard let r = monitor.record(rid, device: device), let c = monitor.condition(rid) else { continue }
                if let filter, r.state != filter { continue }
                matched += 1
                if items.count < limit {
                    var o: [String: JSONValue] = ["id": .string(rid), "origin": .string(c.origin.rawValue)]
                    if perDeviceSummary { o["devices_inside"] = .number(Double(inside[rid] ?? 0)) } else { o["state"] = .string(r.state.rawValue) }
                    items.append(.object(o))
                }
            }
            return .object(["count": .number(Double(matched)), "regions": .array(items), "truncated": .bool(matched > items.count)])
        case "region.record":
            let device = try commandDevice(&args, required: true)
            let rid = try Self.id(args)
            guard monitor.condition(rid) != nil else { throw ServiceCommandError("no region '\(rid)'; see locus ctl region list") }
            try emitSnapshot(rid, device: device, at: commandTime, output: &output)
            return try record(rid, device: device)
        case "region.devices":
            return try devicesReply(args)
        default:
            throw ServiceCommandError("region service does not answer '\(command)'")
        }
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
        var o: [String: JSONValue] = ["definition": c.definition, "monitor": .string(id)]
        if monitor.perDevice {
            guard !device.isEmpty else {
                o["devices"] = .number(Double(monitor.deviceCount))
                return .object(o)
            }
            o["device"] = .string(device)
        }
        if case .object(let ro) = r.recordJSON { for (k, v) in ro { o[k] = v } }
        return .object(o)
    }

    mutating func emitSnapshot(_ rid: String, device: String, at time: EventTime, output: inout ServiceOutput) throws {
        guard let body = monitor.snapshot(rid, device: device) else { return }
        output.emit(RegionStateSnapshot(body), topic: RegionStateKind.topicPrefix + rid + (body.device.map { "." + $0 } ?? ""), time: time)
    }

    static func id(_ args: [String: JSONValue]) throws -> String {
        guard let rid = args["id"]?.stringValue, !rid.isEmpty else { throw ServiceCommandError("missing id=<region id>") }
        let unknown = Set(args.keys).subtracting(["id"])
        if let k = unknown.sorted().first { throw ServiceCommandError("unknown argument '\(k)'; only id is taken") }
        return rid
    }

    static func assuming(_ value: JSONValue?) throws -> RegionState? {
        guard let value else { return nil }
        guard let text = value.stringValue, let s = RegionState(rawValue: text), s != .unknown else {
            throw ServiceCommandError("assuming must be satisfied or unsatisfied")
        }
        return s
    }
}
