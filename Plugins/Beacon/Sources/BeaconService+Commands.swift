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
            if let existing = monitor.condition(condition.id), existing.origin != .runtime {
                throw ServiceCommandError("beacon condition '\(condition.id)' is defined in config (conditions:); change it there")
            }
            // The runtime commits the change with the command's events before it replies.
            putRuntime(condition)
            // Per device there is no one state to show: `beacon record id=… device=…` shows one.
            if !perDevice { emitSnapshot(condition.id, device: "", output: &output) }
            return try record(condition.id, device: "")
        case "beacon.remove":
            let cid = try Self.id(args)
            guard let existing = monitor.condition(cid) else { throw ServiceCommandError("no beacon condition '\(cid)'; see locus ctl beacon list") }
            guard existing.origin == .runtime else {
                throw ServiceCommandError("beacon condition '\(cid)' is defined in config (conditions:); remove it there")
            }
            removeRuntime(cid)
            return .object(["removed": .string(cid)])
        case "beacon.list":
            let device = try commandDevice(&args, required: false)
            let perDeviceSummary = perDevice && device.isEmpty
            var filter: BeaconState?
            if let raw = args["state"] {
                guard let text = raw.stringValue, let s = BeaconState(rawValue: text) else {
                    throw ServiceCommandError("state must be unknown, satisfied or unsatisfied")
                }
                filter = s
            }
            var limit = 1000
            if let raw = args["limit"] {
                guard let n = raw.doubleValue, n >= 0, n == n.rounded() else { throw ServiceCommandError("limit must be a whole number ≥ 0") }
                limit = Int(n)
            }
            if let k = Set(args.keys).subtracting(["state", "limit"]).sorted().first {
                throw ServiceCommandError("unknown argument '\(k)'; beacon list takes state and limit\(perDevice ? " (and device)" : "")")
            }
            if perDeviceSummary && filter != nil {
                throw ServiceCommandError("'\(id)' keeps one state per device: state= needs device=…")
            }
            let shown = try monitor(of: device)
            // Per device without device=: each condition with the number of devices satisfying it.
            let satisfying = perDeviceSummary ? satisfiedCounts() : [:]
            var items: [JSONValue] = []
            var matched = 0
            for cid in shown.ids {
                guard let r = shown.record(cid), let c = shown.condition(cid) else { continue }
                if let filter, r.state != filter { continue }
                matched += 1
                if items.count < limit {
                    var o: [String: JSONValue] = ["id": .string(cid), "origin": .string(c.origin.rawValue)]
                    if perDeviceSummary { o["devices_satisfied"] = .number(Double(satisfying[cid] ?? 0)) } else { o["state"] = .string(r.state.rawValue) }
                    items.append(.object(o))
                }
            }
            return .object(["count": .number(Double(matched)), "conditions": .array(items), "truncated": .bool(matched > items.count)])
        case "beacon.record":
            let device = try commandDevice(&args, required: true)
            let cid = try Self.id(args)
            guard monitor.condition(cid) != nil else { throw ServiceCommandError("no beacon condition '\(cid)'; see locus ctl beacon list") }
            emitSnapshot(cid, device: device, output: &output)
            return try record(cid, device: device)
        case "beacon.devices":
            return try devicesReply(args)
        default:
            throw ServiceCommandError("beacon service does not answer '\(command)'")
        }
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
        let shown = try monitor(of: device)
        guard let c = shown.condition(cid), let r = shown.record(cid) else { throw ServiceCommandError("no beacon condition '\(cid)'") }
        var o: [String: JSONValue] = ["definition": c.definition, "monitor": .string(id)]
        if perDevice {
            guard !device.isEmpty else {
                o["devices"] = .number(Double(devices.count))
                return .object(o)
            }
            o["device"] = .string(device)
        }
        if case .object(let ro) = r.recordJSON { for (k, v) in ro { o[k] = v } }
        return .object(o)
    }

    func emitSnapshot(_ cid: String, device: String, output: inout ServiceOutput) {
        guard let m = try? monitor(of: device), var body = m.snapshot(cid) else { return }
        let suffix = perDevice ? "." + device : ""
        if perDevice { body.device = device }
        output.emit(BeaconStateSnapshot(body), topic: BeaconStateKind.topicPrefix + cid + suffix, time: commandTime)
    }

    static func id(_ args: [String: JSONValue]) throws -> String {
        guard let cid = args["id"]?.stringValue, !cid.isEmpty else { throw ServiceCommandError("missing id=<condition id>") }
        if let k = Set(args.keys).subtracting(["id"]).sorted().first { throw ServiceCommandError("unknown argument '\(k)'; only id is taken") }
        return cid
    }
}
