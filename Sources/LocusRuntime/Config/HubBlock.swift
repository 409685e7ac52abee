import LocusBus
import LocusCore
import LocusStore

/// The `hub:` section as written, each key declared once (the same `@Setting` mechanism as
/// plugins' keys). `ConfigLoader` decodes it and resolves it into `HubSettings`: endpoints and
/// the state directory left out come from the environment, a relative state directory is
/// taken from the config file's directory.
struct HubBlock: DeclaredConfiguration {
    @Setting("ingest", "Endpoints the hub's XSUB binds (one or a list); publishers connect here. A list replaces the default, so include the ipc endpoint to keep it.",
             default: "ipc://<runtime dir>/ingest.sock")
    var ingest: EndpointList? = nil

    @Setting("publish", "Endpoints the hub's XPUB binds (one or a list); subscribers connect here. A list replaces the default.",
             default: "ipc://<runtime dir>/publish.sock")
    var publish: EndpointList? = nil

    @Setting("control", "The one endpoint of the control socket (locus ctl).", default: "ipc://<runtime dir>/control.sock")
    var control: ControlEndpoint? = nil

    /// max_message_bytes, high_water_mark, validate_payloads, ingest_rate_per_client and the
    /// four subscription limits: the hub's own keys, declared where the hub takes them.
    var limits = HubLimits()

    /// subscription_buffer, status_interval, tick_interval and external_topics, as the runtime reads them.
    var runtime = RuntimeSettings()

    @Setting("journal", "Append service events to the journal in the state directory before they are published, and serve them on the catch-up socket (docs/protocol.md 13).")
    var journal: Bool = true

    /// journal_topics, journal_exclude, journal_max_bytes, journal_max_age and
    /// journal_segment_bytes, as the journal takes them.
    var journalSettings = JournalSettings()

    @Setting("catchup", "Endpoints of the catch-up socket (one or a list), where subscribers that were away ask for what they missed.",
             default: "ipc://<runtime dir>/catchup.sock")
    var catchup: EndpointList? = nil

    @Setting("state_directory", "Where plugins keep state across restarts; relative to the config file.",
             default: "$LOCUS_STATE_DIR, else $STATE_DIRECTORY, else this config file's own <name>-<hash> in $XDG_STATE_HOME/locus/configs, else in ~/.local/state/locus/configs",
             check: SettingCheck { $0?.isEmpty == true ? "must not be empty" : nil })
    var stateDirectory: String? = nil

    /// control_max_request_bytes and control_requests_per_second, as the control server takes them.
    var controlLimits = ControlLimits()

    @Setting("metrics", "host:port to serve Prometheus metrics on over HTTP (GET /metrics); off unless set. Keep it on loopback unless the network is trusted: the counters name every plugin.",
             default: "off")
    var metrics: MetricsAddressSetting? = nil

    init() {}

    /// `defaults` with what this block sets; `directory` is the config file's.
    func applied(to defaults: HubSettings, directory: String) -> HubSettings {
        var hub = defaults
        if let ingest { hub.ingest = ingest.endpoints }
        if let publish { hub.publish = publish.endpoints }
        if let control { hub.control = control.endpoint }
        if let catchup { hub.catchup = catchup.endpoints }
        var curve: [String: CurveFiles] = [:]
        for entry in (ingest?.entries ?? []) + (publish?.entries ?? []) + (catchup?.entries ?? []) + (control.map { [$0.entry] } ?? []) {
            if let files = entry.curve { curve[entry.endpoint] = files.resolved(against: directory) }
            if let group = entry.group { hub.groups[entry.endpoint] = group }
            if !entry.allowTopics.isEmpty { hub.allowTopics[entry.endpoint] = entry.allowTopics }
            hub.clientTopics.merge(entry.clientTopics) { a, b in a + b }
            if !entry.topics.isEmpty || entry.precision != nil {
                hub.restricted[entry.endpoint] = RestrictedEndpoint(topics: entry.topics, precision: entry.precision)
            }
        }
        hub.curve = curve
        hub.journal = journal ? journalSettings : nil
        hub.limits = limits
        hub.runtime = runtime
        hub.metrics = metrics?.address
        if let stateDirectory {
            hub.stateDirectory = stateDirectory.hasPrefix("/") ? stateDirectory : directory + "/" + stateDirectory
            hub.sharedStateDirectory = nil
        }
        hub.controlLimits = controlLimits
        return hub
    }
}

/// One endpoint or a list of them, each a string or a mapping with its security
/// (`EndpointEntry`), each checked (`ConfigEndpoint.problem`, `EndpointEntry.securityProblem`).
struct EndpointList: SettingValue, Equatable {
    var entries: [EndpointEntry]
    var endpoints: [String] { entries.map(\.endpoint) }

    static var settingType: String { "endpoint or list of endpoints" }
    var settingText: String { endpoints.count == 1 ? endpoints[0] : "[" + endpoints.joined(separator: ", ") + "]" }

    static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> EndpointList {
        let name = key.stringValue
        let single = try? container.decode(EndpointEntry.RawEntry.self, forKey: key)
        let isList = (try? container.decode([EndpointEntry.RawEntry].self, forKey: key)) != nil
        let list = try isList ? container.decode([EndpointEntry.RawEntry].self, forKey: key)
            : [single ?? container.decode(EndpointEntry.RawEntry.self, forKey: key)]
        guard !list.isEmpty else {
            throw ConfigValueError(key: name, "\(name) needs at least one endpoint, such as ipc:///run/locus/\(name).sock or tcp://127.0.0.1:5556")
        }
        var entries: [EndpointEntry] = []
        for (i, raw) in list.enumerated() {
            let role: EndpointEntry.Role = name == "ingest" ? .ingest : name == "catchup" ? .catchup : .publish
            entries.append(try EndpointEntry.read(raw, key: isList ? "\(name).\(i)" : name, role: role))
        }
        return EndpointList(entries: entries)
    }
}

/// The control socket's one endpoint, checked (`ConfigEndpoint.problem`).
/// `hub.metrics`: `host:port`, checked (`MetricsAddress.parse`).
struct MetricsAddressSetting: SettingValue, Equatable {
    var address: MetricsAddress

    static var settingType: String { "host:port" }
    var settingText: String { address.text }

    static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> MetricsAddressSetting {
        let text = try container.decode(String.self, forKey: key)
        switch MetricsAddress.parse(text) {
        case .success(let a): return MetricsAddressSetting(address: a)
        case .failure(let e): throw ConfigValueError(key: key.stringValue, e.description)
        }
    }
}

struct ControlEndpoint: SettingValue, Equatable {
    var entry: EndpointEntry
    var endpoint: String { entry.endpoint }

    static var settingType: String { "endpoint" }
    var settingText: String { endpoint }

    static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> ControlEndpoint {
        let raw = try container.decode(EndpointEntry.RawEntry.self, forKey: key)
        if case .list = raw {
            // The loader's own wording for a list where one value belongs.
            throw DecodingError.typeMismatch(String.self, .init(codingPath: container.codingPath + [key], debugDescription: "expected a single value"))
        }
        return ControlEndpoint(entry: try EndpointEntry.read(raw, key: key.stringValue, role: .control))
    }
}
