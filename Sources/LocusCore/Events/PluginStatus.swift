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
}
