import Foundation
import LocusCore
import LocusRegions
import LocusStore

extension RegionService {
    public mutating func handle(command: String, arguments: JSONValue, output: inout ServiceOutput) throws -> JSONValue {
        try openIfNeeded(&output)
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
            if let existing = monitor.condition(condition.id), existing.origin != .runtime {
                throw ServiceCommandError("region '\(condition.id)' is defined in \(existing.origin == .config ? "config (regions:)" : "the region file"); change it there")
            }
            let time = commandTime
            if let store {
                var changes = StateChanges()
                changes.put("condition", key: condition.id, value: condition.definition)
                var probe = monitor
                probe.put(condition, assuming: assuming)
                if let r = probe.record(condition.id) { changes.put("state", key: condition.id, value: r.json) }
                try store.commit(changes)
            }
            monitor.put(condition, assuming: assuming)
            _ = monitor.takeChanges()
            try emitSnapshot(condition.id, at: time, output: &output)
            return try record(condition.id)
        case "region.remove":
            let rid = try Self.id(args)
            guard let existing = monitor.condition(rid) else { throw ServiceCommandError("no region '\(rid)'; see locus ctl region list") }
            guard existing.origin == .runtime else {
                throw ServiceCommandError("region '\(rid)' is defined in \(existing.origin == .config ? "config (regions:)" : "the region file"); remove it there")
            }
            if let store {
                var changes = StateChanges()
                changes.delete("condition", key: rid)
                changes.delete("state", key: rid)
                try store.commit(changes)
            }
            monitor.remove(rid)
            _ = monitor.takeChanges()
            return .object(["removed": .string(rid)])
        case "region.list":
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
            if let k = unknownKeys.sorted().first { throw ServiceCommandError("unknown argument '\(k)'; region list takes state and limit") }
            var items: [JSONValue] = []
            var matched = 0
            for rid in monitor.ids {
                guard let r = monitor.record(rid), let c = monitor.condition(rid) else { continue }
                if let filter, r.state != filter { continue }
                matched += 1
                if items.count < limit {
                    items.append(.object(["id": .string(rid), "state": .string(r.state.rawValue), "origin": .string(c.origin.rawValue)]))
                }
            }
            return .object(["count": .number(Double(matched)), "regions": .array(items), "truncated": .bool(matched > items.count)])
        case "region.record":
            let rid = try Self.id(args)
            guard monitor.condition(rid) != nil else { throw ServiceCommandError("no region '\(rid)'; see locus ctl region list") }
            try emitSnapshot(rid, at: commandTime, output: &output)
            return try record(rid)
        default:
            throw ServiceCommandError("region service does not answer '\(command)'")
        }
    }

    /// Commands are not part of a replay: their events carry the time of the last message
    /// received, or the wall clock before any.
    var commandTime: EventTime {
        lastMessageTime ?? EventTime(seconds: Date().timeIntervalSince1970)
    }

    func record(_ rid: String) throws -> JSONValue {
        guard let c = monitor.condition(rid), let r = monitor.record(rid) else { throw ServiceCommandError("no region '\(rid)'") }
        var o: [String: JSONValue] = ["definition": c.definition, "monitor": .string(id)]
        if case .object(let ro) = r.recordJSON { for (k, v) in ro { o[k] = v } }
        return .object(o)
    }

    mutating func emitSnapshot(_ rid: String, at time: EventTime, output: inout ServiceOutput) throws {
        guard let body = monitor.snapshot(rid) else { return }
        output.emit(RegionStateSnapshot(body), topic: RegionStateKind.topicPrefix + rid, time: time)
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
