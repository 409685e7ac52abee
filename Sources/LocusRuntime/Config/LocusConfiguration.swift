import LocusCore
import Logging

/// One enabled plugin entry of the config, built and ready to run.
public struct ConfiguredPlugin {
    public var id: String
    public var type: String
    /// The section it was configured in.
    public var kind: PluginKind
    public var factory: PluginFactory
    public var setup: PluginSetup
    /// Built once at load time (used for validation and for the first run).
    public var instance: PluginInstance
    /// Builds a fresh instance from the same config (for restarts). Throws `ConfigErrors`.
    public var rebuild: () throws -> PluginInstance
    /// What the last built instance read of its watched files (`FileFedService`).
    public var watchedFiles = WatchedFileLedger()
    /// Changes when the entry's configuration does (`ConfigFingerprint`); nil for plugins not
    /// built from a config file's entry.
    public var configurationFingerprint: String?
    /// Position of the entry in the config file (1-based).
    public var line: Int
    public var column: Int

    public init(id: String, type: String, kind: PluginKind, factory: PluginFactory, setup: PluginSetup,
                instance: PluginInstance, rebuild: @escaping () throws -> PluginInstance, line: Int, column: Int) {
        self.id = id
        self.type = type
        self.kind = kind
        self.factory = factory
        self.setup = setup
        self.instance = instance
        self.rebuild = rebuild
        self.line = line
        self.column = column
    }
}

/// A loaded, validated config file.
public struct LocusConfiguration {
    /// The config file's path as given to the loader.
    public var file: String
    public var hub: HubSettings
    /// What plugins (`exec`) and outside programs connect to: the first ipc/tcp ingest and
    /// publish endpoints and the control endpoint, wildcard hosts replaced by loopback.
    public var endpoints: HubEndpoints
    public var logLevel: Logger.Level
    /// Sources, then services, then sinks, in file order within each; disabled entries left out.
    public var plugins: [ConfiguredPlugin]
    /// Ids of entries with `enabled: false`.
    public var disabled: [String]

    public init(file: String, hub: HubSettings, endpoints: HubEndpoints, logLevel: Logger.Level,
                plugins: [ConfiguredPlugin], disabled: [String]) {
        self.file = file
        self.hub = hub
        self.endpoints = endpoints
        self.logLevel = logLevel
        self.plugins = plugins
        self.disabled = disabled
    }

    /// The enabled plugins of one kind, in file order.
    public func plugins(of kind: PluginKind) -> [ConfiguredPlugin] {
        plugins.filter { $0.kind == kind }
    }

    /// True if an enabled source publishes `clock.tick` in its own recorded time (a replay), so
    /// the runtime must not tick from the wall clock.
    public var sourceDrivesClock: Bool {
        plugins.contains { p in
            if case .source(let s) = p.instance { return s.drivesClock }
            return false
        }
    }
}
