import LocusCore

/// The control commands region and beacon share (`<kind>.add`, `remove`, `list`, `record`,
/// `devices`; docs/control.md): their arguments read by one set of rules, their refusals in one
/// wording and their replies in one shape, as `CLMonitor` has one add/remove for both kinds.
/// What differs is named here (the kind's word, what a condition is called); what a service
/// keeps and how it decides a side stays its own.
public struct ConditionCommands: Sendable {
    /// The commands' first word: `region`, `beacon`.
    public var kind: String
    /// What one condition is called in a reply: `region`, `beacon condition`.
    public var noun: String
    /// The config key that lists the kind's conditions: `regions`, `conditions`.
    public var configKey: String
    /// The service's id.
    public var service: String
    /// Whether the service keeps one state per device (`per_device: true`).
    public var perDevice: Bool

    public init(kind: String, noun: String, configKey: String, service: String, perDevice: Bool) {
        self.kind = kind
        self.noun = noun
        self.configKey = configKey
        self.service = service
        self.perDevice = perDevice
    }

    /// `id=` and nothing else (`remove`, `record`).
    public func id(_ args: [String: JSONValue]) throws -> String {
        guard let id = args["id"]?.stringValue, !id.isEmpty else {
            throw ServiceCommandError("missing id=<\(noun.split(separator: " ").last ?? "condition") id>")
        }
        if let k = Set(args.keys).subtracting(["id"]).sorted().first { throw ServiceCommandError("unknown argument '\(k)'; only id is taken") }
        return id
    }

    /// `device=` (`DeviceArgument`): required per device when `required`, refused otherwise.
    public func device(_ args: inout [String: JSONValue], required: Bool) throws -> String {
        try DeviceArgument.take(&args, perDevice: perDevice, required: required, service: service, kind: kind)
    }

    /// Refuses `add` or `remove` (`action`: "change", "remove") of a condition that config or a
    /// file defines: only runtime conditions are `locus ctl`'s.
    public func requireRuntime(_ id: String, origin: ConditionOrigin, action: String) throws {
        guard origin != .runtime else { return }
        let place = origin == .config ? "config (\(configKey):)" : "the \(kind) file"
        throw ServiceCommandError("\(noun) '\(id)' is defined in \(place); \(action) it there")
    }

    /// "no <noun> '<id>'; see locus ctl <kind> list".
    public func unknown(_ id: String) -> ServiceCommandError {
        ServiceCommandError("no \(noun) '\(id)'; see locus ctl \(kind) list")
    }

    /// A command the kind does not have.
    public func notAnswered(_ command: String) -> ServiceCommandError {
        ServiceCommandError("\(kind) service does not answer '\(command)'")
    }

    /// `limit=`: a whole number ≥ 0; 1000 when absent.
    public static func limit(_ value: JSONValue?) throws -> Int {
        guard let value else { return 1000 }
        guard let n = value.doubleValue, n >= 0, n == n.rounded() else { throw ServiceCommandError("limit must be a whole number ≥ 0") }
        return Int(n)
    }

    /// What `list` asks for, `device=` taken out before.
    public struct ListQuery {
        /// The device whose states are listed; "" for the one device, or per device for each
        /// condition with the number of devices satisfying it (`summary`).
        public var device: String
        public var state: ConditionState?
        public var limit: Int
        /// Per device with no device named: counts instead of states.
        public var summary: Bool
    }

    /// Reads `list`'s arguments: `device=`, `state=`, `limit=`.
    public func listQuery(_ arguments: [String: JSONValue]) throws -> ListQuery {
        var args = arguments
        let device = try self.device(&args, required: false)
        var state: ConditionState?
        if let raw = args["state"] {
            guard let text = raw.stringValue, let s = ConditionState(rawValue: text) else {
                throw ServiceCommandError("state must be unknown, satisfied or unsatisfied")
            }
            state = s
        }
        let limit = try Self.limit(args["limit"])
        if let k = Set(args.keys).subtracting(["state", "limit"]).sorted().first {
            throw ServiceCommandError("unknown argument '\(k)'; \(kind) list takes state and limit\(perDevice ? " (and device)" : "")")
        }
        let summary = perDevice && device.isEmpty
        if summary && state != nil { throw ServiceCommandError("'\(service)' keeps one state per device: state= needs device=…") }
        return ListQuery(device: device, state: state, limit: limit, summary: summary)
    }

    /// `list`'s reply: `ids` in order, each with its origin and, by `query`, its state or (a
    /// summary) `counts` under `countKey`; `row` gives a condition's origin and state, nil to
    /// leave it out. At most `query.limit` rows; `count` is every match.
    public func listReply(_ query: ListQuery, ids: [String], arrayKey: String, countKey: String, counts: [String: Int],
                          row: (String) -> (origin: ConditionOrigin, state: ConditionState)?) -> JSONValue {
        var items: [JSONValue] = []
        var matched = 0
        for id in ids {
            guard let r = row(id) else { continue }
            if let wanted = query.state, r.state != wanted { continue }
            matched += 1
            guard items.count < query.limit else { continue }
            var o: [String: JSONValue] = ["id": .string(id), "origin": .string(r.origin.rawValue)]
            if query.summary { o[countKey] = .number(Double(counts[id] ?? 0)) } else { o["state"] = .string(r.state.rawValue) }
            items.append(.object(o))
        }
        return .object(["count": .number(Double(matched)), arrayKey: .array(items), "truncated": .bool(matched > items.count)])
    }

    /// The reply of `record` (and `add`): the definition and the service; per device, the device
    /// and its record, or with no device only the number of devices; else the record.
    public func recordReply(definition: JSONValue, device: String, devices: Int, record: JSONValue) -> JSONValue {
        var o: [String: JSONValue] = ["definition": definition, "monitor": .string(service)]
        if perDevice {
            guard !device.isEmpty else {
                o["devices"] = .number(Double(devices))
                return .object(o)
            }
            o["device"] = .string(device)
        }
        if case .object(let ro) = record { for (k, v) in ro { o[k] = v } }
        return .object(o)
    }

    /// `devices`' argument, `limit=` (only per device).
    public func devicesLimit(_ args: [String: JSONValue]) throws -> Int {
        guard perDevice else { throw ServiceCommandError("'\(service)' watches one device (per_device is off)") }
        if let k = args.keys.sorted().first(where: { $0 != "limit" }) {
            throw ServiceCommandError("unknown argument '\(k)'; \(kind) devices takes limit")
        }
        return try Self.limit(args["limit"])
    }

    /// `devices`' reply: the first `limit` of `all` (sorted), each as `item` gives it.
    public static func devicesReply(_ all: [String], limit: Int, item: (String) -> JSONValue) -> JSONValue {
        let items = all.prefix(limit).map(item)
        return .object(["count": .number(Double(all.count)), "devices": .array(items), "truncated": .bool(all.count > items.count)])
    }
}
