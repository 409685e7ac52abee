import Foundation
import LocusBus
import LocusCore
import LocusStore

/// The `hub:` section: where the hub's sockets bind and how they are tuned.
public struct HubSettings: Sendable, Equatable {
    /// Endpoints the hub's XSUB binds; publishers connect here.
    public var ingest: [String]
    /// Endpoints the hub's XPUB binds; subscribers connect here.
    public var publish: [String]
    /// REP endpoint for `locus ctl`.
    public var control: String
    /// Endpoints of the catch-up socket (docs/protocol.md 13.2).
    public var catchup: [String]
    /// What the journal takes and keeps; nil = no journal (and no catch-up socket).
    public var journal: JournalSettings? = JournalSettings()
    /// The hub's own keys, as `HubBlock` declares them and the hub takes them.
    public var limits = HubLimits()
    /// The control socket's request size and rate, as the control server takes them.
    public var controlLimits = ControlLimits()
    /// Subscription buffers, drop report and tick intervals, outside topics.
    public var runtime = RuntimeSettings()
    /// Where metrics are served over HTTP (`hub.metrics`); nil = not served.
    public var metrics: MetricsAddress?
    /// Where plugins keep state across restarts (the region service's database, …).
    public var stateDirectory: String
    /// When `stateDirectory` is the config file's own directory under the default one
    /// (`RuntimePaths.stateDirectory(forConfig:environment:)`): that default one, where a Locus
    /// before per-config state directories kept every config's state. Nil when the state
    /// directory was chosen (`hub.state_directory`, `$LOCUS_STATE_DIR`, `$STATE_DIRECTORY`).
    public var sharedStateDirectory: String?
    /// Endpoints bound with CURVE (of any of the lists), and their key files.
    public var curve: [String: CurveFiles] = [:]
    /// ipc endpoints whose socket file is given to a group (name or number), mode 0660.
    public var groups: [String: String] = [:]
    /// Reserved topic prefixes granted to an ingest endpoint's publishers (`allow_topics`).
    public var allowTopics: [String: [String]] = [:]
    /// Reserved topic prefixes granted to CURVE clients by key name (`allow_topics: {NAME: […]}`).
    public var clientTopics: [String: [String]] = [:]
    /// Publish endpoints with a topic or precision policy (served by a `RestrictedPublisher`,
    /// not by the hub's own publish socket).
    public var restricted: [String: RestrictedEndpoint] = [:]

    /// Every ipc socket file the daemon binds, with the group it is given to (nil: owner only).
    public var ipcSockets: [(path: String, group: String?)] {
        let all = ingest + publish + [control] + (journal == nil ? [] : catchup)
        return all.compactMap { e in (try? Endpoint.validate(e).ipcFilePath).flatMap { $0 }.map { ($0, groups[e]) } }
    }

    /// How far (in one producer's sequence numbers) an in-process subscriber may fall behind
    /// before sources reading files wait for it: well inside both its buffer and ZeroMQ's queue.
    public var deliveryWindow: UInt64 {
        var w = min(4096, runtime.subscriptionBuffer / 4)
        if limits.highWaterMark > 0 { w = min(w, limits.highWaterMark / 2) }
        return UInt64(max(2, w))
    }

    public init(ingest: [String], publish: [String], control: String, catchup: [String] = [],
                stateDirectory: String = RuntimePaths.stateDirectory()) {
        self.stateDirectory = stateDirectory
        self.ingest = ingest
        self.publish = publish
        self.control = control
        self.catchup = catchup
    }

    /// Defaults for an environment: ipc sockets in the runtime directory.
    public static func defaults(environment: [String: String]) -> HubSettings {
        let e = RuntimePaths.defaultEndpoints(environment: environment)
        return HubSettings(ingest: [e.ingest], publish: [e.publish], control: e.control, catchup: [e.catchup],
                           stateDirectory: RuntimePaths.stateDirectory(environment: environment))
    }

    /// What plugins (and outside programs) connect to: the first ipc or tcp endpoint of each list
    /// (inproc ones are only reachable inside this process), with wildcard tcp hosts replaced by
    /// the loopback address.
    public var connectEndpoints: HubEndpoints {
        func pick(_ list: [String]) -> String {
            let chosen = list.first { $0.hasPrefix("ipc://") || $0.hasPrefix("tcp://") } ?? list.first ?? ""
            return ConfigEndpoint.connectable(chosen)
        }
        return HubEndpoints(ingest: pick(ingest), publish: pick(publish.filter { restricted[$0] == nil }), control: ConfigEndpoint.connectable(control),
                            catchup: journal == nil ? "" : pick(catchup))
    }
}

/// A publish endpoint's policy: only `topics` (empty: all) and positions reduced to `precision`.
public struct RestrictedEndpoint: Sendable, Equatable {
    public var topics: [String]
    public var precision: PrecisionReduction?
}

/// Where the hub's sockets live by default, shared by the daemon and the CLI (`locus sub`).
public enum RuntimePaths {
    /// `$LOCUS_RUNTIME_DIR`, else `$XDG_RUNTIME_DIR/locus`, else `/tmp/locus-<uid>` (empty values count as unset).
    public static func runtimeDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let dir = environment["LOCUS_RUNTIME_DIR"], !dir.isEmpty { return trimmed(dir) }
        if let xdg = environment["XDG_RUNTIME_DIR"], !xdg.isEmpty { return trimmed(xdg) + "/locus" }
        return "/tmp/locus-\(getuid())"
    }

    /// True when the environment chooses the state directory: `$LOCUS_STATE_DIR` or systemd's
    /// `$STATE_DIRECTORY` (a unit runs one config). Otherwise each config file gets its own
    /// (`stateDirectory(forConfig:environment:)`).
    public static func stateDirectoryIsChosen(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        if let dir = environment["LOCUS_STATE_DIR"], !dir.isEmpty { return true }
        if let dirs = environment["STATE_DIRECTORY"], let first = dirs.split(separator: ":").first, !first.isEmpty { return true }
        return false
    }

    /// The state directory of the config file at `configPath` when neither the config
    /// (`hub.state_directory`) nor the environment chooses one: `<default>/configs/<name>-<hash>`,
    /// `<name>` the file's name without `.yaml`, `<hash>` 12 hex digits of its absolute path
    /// (symbolic links resolved). Two config files never share service state by accident, and
    /// running the same file again (from any directory) finds its state. With a chosen
    /// directory, that directory.
    public static func stateDirectory(forConfig configPath: String,
                                      environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let base = stateDirectory(environment: environment)
        if stateDirectoryIsChosen(environment: environment) { return base }
        return base + "/configs/" + configKey(configPath)
    }

    /// `<name>-<hash>` of a config file (`stateDirectory(forConfig:environment:)`).
    static func configKey(_ configPath: String) -> String {
        var absolute = configPath.hasPrefix("/") ? configPath : FileManager.default.currentDirectoryPath + "/" + configPath
        if let resolved = realpath(absolute, nil) {
            absolute = String(cString: resolved)
            free(resolved)
        } else {
            absolute = (absolute as NSString).standardizingPath
        }
        var name = (absolute as NSString).lastPathComponent
        for suffix in [".yaml", ".yml"] where name.hasSuffix(suffix) && name.count > suffix.count { name.removeLast(suffix.count) }
        let safe = String(name.prefix(40).map { $0.isASCII && ($0.isLetter || $0.isNumber || "._-".contains($0)) ? $0 : "_" })
        return (safe.isEmpty || safe.hasPrefix(".") ? "config" : safe) + "-" + StableHash.hex(absolute).prefix(12)
    }

    /// `$LOCUS_STATE_DIR`, else systemd's `$STATE_DIRECTORY` (first entry), else
    /// `$XDG_STATE_HOME/locus`, else `$HOME/.local/state/locus`, else `/var/lib/locus`.
    public static func stateDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let dir = environment["LOCUS_STATE_DIR"], !dir.isEmpty { return trimmed(dir) }
        if let dirs = environment["STATE_DIRECTORY"], let first = dirs.split(separator: ":").first, !first.isEmpty {
            return trimmed(String(first))
        }
        if let xdg = environment["XDG_STATE_HOME"], !xdg.isEmpty { return trimmed(xdg) + "/locus" }
        if let home = environment["HOME"], !home.isEmpty { return trimmed(home) + "/.local/state/locus" }
        return "/var/lib/locus"
    }

    /// `ipc://<dir>/ingest.sock`, `ipc://<dir>/publish.sock`, `ipc://<dir>/control.sock`, `ipc://<dir>/catchup.sock`.
    public static func defaultEndpoints(environment: [String: String] = ProcessInfo.processInfo.environment) -> HubEndpoints {
        let dir = runtimeDirectory(environment: environment)
        return HubEndpoints(ingest: "ipc://\(dir)/ingest.sock",
                            publish: "ipc://\(dir)/publish.sock",
                            control: "ipc://\(dir)/control.sock", catchup: "ipc://\(dir)/catchup.sock")
    }

    private static func trimmed(_ dir: String) -> String {
        var d = dir
        while d.count > 1, d.hasSuffix("/") { d.removeLast() }
        return d
    }
}

/// Endpoint checks for `hub:`: the hub's own parser (`Endpoint.validate`), and one rule of the
/// configuration's own.
enum ConfigEndpoint {
    /// nil if `endpoint` is usable; otherwise what is wrong and what is expected.
    static func problem(_ endpoint: String) -> String? {
        do {
            // A bind may pick its port, but nobody could then find it: a configured socket is
            // for others to connect to.
            if case .tcp(_, nil) = try Endpoint.validate(endpoint) {
                return "port '*' in '\(endpoint)' lets the system pick a port nobody can find; expected a fixed port number from 1 to 65535"
            }
            return nil
        } catch let error as EndpointError {
            return "'\(endpoint)': \(error.reason)"
        } catch {
            return "\(error)"
        }
    }

    /// True for tcp endpoints whose host is loopback by `HostAddress.isLoopback`'s rule (literal
    /// 127.0.0.0/8 or ::1, `localhost`, the `lo` interface); false for wildcards and every
    /// other host, names that merely look like 127.x included.
    static func isLoopback(_ endpoint: String) -> Bool { Endpoint.isLoopback(endpoint) }

    /// A bind endpoint turned into one a client can connect to (`*`/`0.0.0.0` → `127.0.0.1`, `[::]` → `[::1]`).
    static func connectable(_ endpoint: String) -> String {
        for (wild, local) in [("tcp://*:", "tcp://127.0.0.1:"), ("tcp://0.0.0.0:", "tcp://127.0.0.1:"), ("tcp://[::]:", "tcp://[::1]:")]
        where endpoint.hasPrefix(wild) {
            return local + endpoint.dropFirst(wild.count)
        }
        return endpoint
    }
}
