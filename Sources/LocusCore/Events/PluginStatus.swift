/// A plugin's (or the hub's) state change (`status.plugin`, topic `status.<plugin-id>`).
/// Published on every change, never repeated on ticks.
public struct PluginStatus: Payload, Equatable {
    public static let eventType = "status.plugin"
    public static let schemaVersion = 1

    public enum State: String, Sendable, CaseIterable {
        case starting, running, stopped, failed, restarting
        /// Device-facing sources: the device or daemon is reachable / lost / silent.
        case connected, disconnected
        case noData = "no_data"
    }

    /// The plugin id.
    public var plugin: String
    /// `source`, `service`, `sink` or `hub`.
    public var kind: String
    /// The plugin type (`replay`, `exec`, …).
    public var pluginType: String
    public var state: State
    /// Why: the error for `failed`, the cause for `disconnected`/`no_data`.
    public var reason: String?
    /// How many times the runtime has restarted the plugin so far.
    public var restarts: Int
    /// For `restarting`: seconds until the next attempt.
    public var retryIn: Double?

    public init(plugin: String, kind: String, pluginType: String, state: State, reason: String? = nil,
                restarts: Int = 0, retryIn: Double? = nil) {
        self.plugin = plugin
        self.kind = kind
        self.pluginType = pluginType
        self.state = state
        self.reason = reason
        self.restarts = restarts
        self.retryIn = retryIn
    }

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("plugin"); w.string(plugin)
        w.key("kind"); w.string(kind)
        w.key("plugin_type"); w.string(pluginType)
        w.key("state"); w.string(state.rawValue)
        w.field("reason", reason)
        w.key("restarts"); w.int(restarts)
        w.field("retry_in", retryIn, fractionDigits: 3)
        w.endObject()
    }

    public init(from r: inout JSONReader) throws {
        var plugin: String?, kind: String?, type: String?, state: State?
        var reason: String?, restarts = 0, retryIn: Double?
        try r.readObject { r, k in
            if k == "plugin" { plugin = try r.readString() }
            else if k == "kind" { kind = try r.readString() }
            else if k == "plugin_type" { type = try r.readString() }
            else if k == "state" {
                let s = try r.readString()
                guard let st = State(rawValue: s) else { throw r.error("unknown state '\(s)'") }
                state = st
            }
            else if k == "reason" { reason = try r.readOptionalString() }
            else if k == "restarts" { restarts = try r.readInt() }
            else if k == "retry_in" { retryIn = try r.readOptionalDouble() }
            else { try r.skipValue() }
        }
        guard let plugin, let kind, let type, let state else { throw r.error("status.plugin needs plugin, kind, plugin_type, state") }
        self.init(plugin: plugin, kind: kind, pluginType: type, state: state, reason: reason, restarts: restarts, retryIn: retryIn)
    }
}
