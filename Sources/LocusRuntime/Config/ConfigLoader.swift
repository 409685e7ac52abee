import Foundation
import LocusCore
import Logging
import Yams

/// Reads `config.yaml`, checks everything it can, and builds the configured plugins.
///
/// Every problem found is reported (not just the first) as a `ConfigErrors`, each with the line
/// and column an editor shows and a message saying what is wrong and what was expected.
public struct ConfigLoader: Sendable {
    public var factories: [PluginFactory]
    public var environment: [String: String]
    public var logger: Logger

    public init(factories: [PluginFactory], environment: [String: String] = ProcessInfo.processInfo.environment,
                logger: Logger) {
        self.factories = factories
        self.environment = environment
        self.logger = logger
    }

    /// Producer ids the runtime uses for itself: status events (`locus`), wall ticks (`clock`),
    /// the hub. A plugin with one of them would share its sequence numbers.
    static let reservedIDs: Set<String> = ["locus", "clock", "hub"]

    public enum Mode: Sendable, Equatable {
        /// A daemon config: hub, log, sources, services, sinks.
        case full
        /// For `locus replay FILE --config C`: only `services:` (and `log:`) are read — `hub`,
        /// `sources` and `sinks` are skipped, so a daemon's config works as it is — and
        /// subscriptions are checked assuming the replay provides `obs.` and `clock.tick`.
        case servicesOnly
    }

    /// Loads the file at `path`. Messages name the file as `path` was given; relative paths in
    /// plugin config resolve against the file's directory.
    public func load(path: String, mode: Mode = .full) throws -> LocusConfiguration {
        let text: String
        switch Self.readText(path) {
        case .success(let t): text = t
        case .failure(let failure):
            throw ConfigErrors(errors: [ConfigError(file: path, line: 0, column: 0, message: failure.message)])
        }
        return try load(text: text, file: path, directory: Self.absoluteDirectory(of: path), mode: mode)
    }

    /// Loads config text; `file` is used in messages and its directory resolves relative paths.
    public func load(text: String, file: String, mode: Mode = .full) throws -> LocusConfiguration {
        try load(text: text, file: file, directory: Self.directory(of: file), mode: mode)
    }

    /// Loads config text; `file` is used in messages, `directory` resolves relative paths.
    public func load(text: String, file: String, directory: String, mode: Mode = .full) throws -> LocusConfiguration {
        let session = ConfigLoadSession(loader: self, file: file, directory: directory, mode: mode)
        return try session.run(text: text)
    }

    static func directory(of file: String) -> String {
        guard let slash = file.lastIndex(of: "/") else { return "" }
        if slash == file.startIndex { return "/" }
        return String(file[..<slash])
    }

    static func absoluteDirectory(of file: String) -> String {
        let dir = directory(of: file)
        if dir.hasPrefix("/") { return dir }
        let cwd = FileManager.default.currentDirectoryPath
        return dir.isEmpty || dir == "." ? cwd : cwd + "/" + dir
    }

    /// The file's text, or a message naming the path and the OS error.
    struct ReadFailure: Error {
        var message: String
    }

    static func readText(_ path: String) -> Result<String, ReadFailure> {
        func failure(_ code: Int32) -> Result<String, ReadFailure> {
            .failure(ReadFailure(message: "cannot read config file '\(path)': \(String(cString: strerror(code)))"))
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return failure(errno) }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR { continue }
                return failure(errno)
            }
            if n == 0 { break }
            bytes.append(contentsOf: buffer[0..<n])
            if bytes.count > 16 * 1024 * 1024 {
                return .failure(ReadFailure(message: "config file '\(path)' is larger than 16 MiB; is it the right file?"))
            }
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            return .failure(ReadFailure(message: "config file '\(path)' is not UTF-8 text"))
        }
        return .success(text)
    }
}

/// The state of one `load`: collects errors as it walks the document.
final class ConfigLoadSession {
    static let sectionNames = ["hub", "log", "sources", "services", "sinks"]
    static let hubKeys = HubBlock.keys.map(\.name)
    static let logKeys = ["level"]
    static let entryKeys = ["type", "id", "enabled", "per_device", "max_devices"]
    /// Produced by the runtime itself whatever the config says.
    static let runtimeTopics = ["status.", "clock.tick"]
    /// What `locus replay` provides to a services-only config.
    static let replayTopics = ["obs.", "clock.tick"]

    let loader: ConfigLoader
    let file: String
    let directory: String
    let mode: ConfigLoader.Mode
    /// The config file's absolute path (`file` against the working directory when `directory`
    /// is not absolute): what its default state directory is derived from.
    var configPath: String {
        let name = (file as NSString).lastPathComponent
        let dir = directory.hasPrefix("/") ? directory : ConfigLoader.absoluteDirectory(of: file)
        return (dir.hasSuffix("/") ? dir : dir + "/") + name
    }
    /// `hub.state_directory`, handed to plugins in `.full` mode.
    var stateDirectory = ""
    var journal: JournalLocation?
    /// `hub.max_message_bytes`, handed to plugins.
    var maxMessageBytes = PluginSetup.defaultMaxMessageBytes
    /// The enabled source entries' ids, handed to plugins (`PluginSetup.sourceIds`).
    var sourceIds: [String] = []
    let environment: [String: String]
    let factoriesByType: [String: PluginFactory]
    private(set) var errors: [ConfigError] = []

    init(loader: ConfigLoader, file: String, directory: String, mode: ConfigLoader.Mode) {
        self.loader = loader
        self.file = file
        self.directory = directory
        self.mode = mode
        var env = loader.environment
        // ${LOCUS_RUNTIME_DIR} always works in config, defaulting like the hub's own sockets.
        if (env["LOCUS_RUNTIME_DIR"] ?? "").isEmpty {
            env["LOCUS_RUNTIME_DIR"] = RuntimePaths.runtimeDirectory(environment: loader.environment)
        }
        self.environment = env
        var byType: [String: PluginFactory] = [:]
        for f in loader.factories where byType[f.type] == nil { byType[f.type] = f }
        self.factoriesByType = byType
    }

    // MARK: - Reporting

    func report(_ position: SourcePosition, _ message: String) {
        errors.append(ConfigError(file: file, line: position.line, column: position.column, message: message))
    }

    func report(_ node: Node, _ message: String) {
        report(node.position, message)
    }

    func unknownKey(_ key: String, at node: Node, in place: String, allowed: [String], suggestFrom extra: [String] = []) {
        report(node, "unknown key '\(key)' in \(place); expected one of: \(allowed.joined(separator: ", "))"
               + ConfigSuggestions.didYouMean(key, among: allowed + extra))
    }

    /// The key's name, or nil (reported) if the key is not a plain scalar.
    func keyName(_ key: Node, in place: String) -> String? {
        if let name = key.stringValue { return name }
        report(key, "keys in \(place) must be plain names, found \(key.foundDescription)")
        return nil
    }

    /// Substitutes environment variables below `node`, reporting unset variables.
    func substitute(_ node: Node, path: String) -> (Node, ok: Bool) {
        var failures: [(SourcePosition, String, EnvironmentSubstitution.Failure)] = []
        let result = ConfigYAML.substitute(node, environment: environment, path: path, failures: &failures)
        for (position, keyPath, failure) in failures {
            let place = keyPath.isEmpty ? "" : " (in '\(keyPath)')"
            report(position, failure.message + place)
        }
        return (result, failures.isEmpty)
    }

    // MARK: - Document

    func run(text: String) throws -> LocusConfiguration {
        let root: Node?
        switch ConfigYAML.parse(text) {
        case .success(let node): root = node
        case .failure(let e):
            report(e.position, e.message)
            throw ConfigErrors(errors: errors)
        }

        var sections: [String: (key: Node, value: Node)] = [:]
        if let root, !root.isNull {
            guard case .mapping(let top) = root else {
                report(root, "the top level of a config file must be a mapping of sections (\(Self.sectionNames.joined(separator: ", "))), found \(root.foundDescription)")
                throw ConfigErrors.sorted(errors)
            }
            for pair in ConfigYAML.pairs(top) {
                guard let name = keyName(pair.key, in: "the top level") else { continue }
                guard Self.sectionNames.contains(name) else {
                    report(pair.key, "unknown top-level key '\(name)'; expected one of: \(Self.sectionNames.joined(separator: ", "))"
                           + ConfigSuggestions.didYouMean(name, among: Self.sectionNames))
                    continue
                }
                if mode == .servicesOnly, name != "services", name != "log" {
                    // The recording takes the place of the sources, stdout of the sinks.
                    continue
                }
                sections[name] = pair
            }
        }

        var hub = HubSettings.defaults(environment: loader.environment)
        // Each config file its own state, unless the config or the environment chooses a directory.
        if !RuntimePaths.stateDirectoryIsChosen(environment: loader.environment) {
            hub.sharedStateDirectory = hub.stateDirectory
            hub.stateDirectory = RuntimePaths.stateDirectory(forConfig: configPath, environment: loader.environment)
        }
        if let hubSection = sections["hub"] { hub = parseHub(hubSection.value, defaults: hub) }
        stateDirectory = hub.stateDirectory
        maxMessageBytes = hub.limits.maxMessageBytes
        journal = hub.journal.map {
            JournalLocation(directory: hub.stateDirectory + "/journal", topics: $0.topics, exclude: $0.exclude)
        }
        var logLevel = Logger.Level.info
        if let logSection = sections["log"] { logLevel = parseLog(logSection.value) ?? .info }
        let endpoints = hub.connectEndpoints

        var built: [BuiltEntry] = []
        var disabled: [String] = []
        var ids: [String: (position: SourcePosition, subject: String)] = [:]
        // When a source or service cannot be built, what it produces is unknown.
        var producerFailed = false
        // Entries are checked in file order (so a duplicate id names the earlier line), then
        // the plugins are put in section order: sources, services, sinks.
        var all: [(entry: (node: Node, mapping: Node.Mapping), kind: PluginKind, section: String)] = []
        for (name, kind) in [("sources", PluginKind.source), ("services", .service), ("sinks", .sink)] {
            guard let section = sections[name] else { continue }
            for entry in entries(of: section.value, section: name) { all.append((entry, kind, name)) }
        }
        all = all.enumerated().sorted { a, b in
            let pa = a.element.entry.node.position, pb = b.element.entry.node.position
            return pa != pb ? pa < pb : a.offset < b.offset
        }.map(\.element)
        sourceIds = all.filter { $0.kind == .source }.compactMap { enabledID($0.entry.mapping) }
        for item in all {
            let outcome = processEntry(item.entry, kind: item.kind, section: item.section, ids: &ids,
                                       endpoints: endpoints, logLevel: logLevel)
            switch outcome {
            case .built(let b): built.append(b)
            case .disabled(let id): if let id { disabled.append(id) }
            case .failed: if item.kind != .sink { producerFailed = true }
            }
        }
        let rank: [PluginKind: Int] = [.source: 0, .service: 1, .sink: 2]
        built = built.enumerated().sorted { a, b in
            let ra = rank[a.element.plugin.kind]!, rb = rank[b.element.plugin.kind]!
            return ra != rb ? ra < rb : a.offset < b.offset
        }.map(\.element)

        validateTopics(built, hub: hub, checkMatches: !producerFailed)

        if !errors.isEmpty { throw ConfigErrors.sorted(errors) }
        loader.logger.debug("config loaded", metadata: [
            "file": "\(file)", "plugins": "\(built.map(\.plugin.id).joined(separator: ","))",
            "disabled": "\(disabled.joined(separator: ","))",
        ])
        return LocusConfiguration(file: file, hub: hub, endpoints: endpoints, logLevel: logLevel,
                                  plugins: built.map(\.plugin), disabled: disabled)
    }

    // MARK: - hub and log

    /// The `hub:` block through the same declared-settings decoding as plugins' keys
    /// (`HubBlock`): unknown keys and unset variables reported here, every refused value with
    /// its position.
    private func parseHub(_ raw: Node, defaults: HubSettings) -> HubSettings {
        if raw.isNull { return defaults }
        guard case .mapping(let m) = raw else {
            report(raw, "'hub' must be a mapping of settings (\(Self.hubKeys.joined(separator: ", "))), found \(raw.foundDescription)")
            return defaults
        }
        var known: [(Node, Node)] = []
        for pair in ConfigYAML.pairs(m) {
            guard let name = keyName(pair.key, in: "hub") else { continue }
            guard Self.hubKeys.contains(name) else {
                unknownKey(name, at: pair.key, in: "hub", allowed: Self.hubKeys)
                continue
            }
            let (value, ok) = substitute(pair.value, path: "hub.\(name)")
            guard ok else { continue }
            known.append((pair.key, value))
        }
        let node = Node.mapping(Node.Mapping(known, m.tag, m.style, m.mark))
        do {
            return try NodeDecoder().decode(HubBlock.self, from: node).applied(to: defaults, directory: directory)
        } catch {
            errors += PluginBuildErrors.configErrors(error, root: node, entry: raw.position, subject: "hub",
                                                     keys: HubBlock.keys, file: file).errors
            return defaults
        }
    }

    private func parseLog(_ raw: Node) -> Logger.Level? {
        if raw.isNull { return nil }
        guard case .mapping(let m) = raw else {
            report(raw, "'log' must be a mapping such as {level: info}, found \(raw.foundDescription)")
            return nil
        }
        var level: Logger.Level?
        let levels = Logger.Level.allCases.map(\.rawValue)
        for pair in ConfigYAML.pairs(m) {
            guard let name = keyName(pair.key, in: "log") else { continue }
            guard name == "level" else {
                unknownKey(name, at: pair.key, in: "log", allowed: Self.logKeys)
                continue
            }
            let (value, ok) = substitute(pair.value, path: "log.level")
            guard ok, let text = string(value, key: "log.level", expected: "one of: \(levels.joined(separator: ", "))") else { continue }
            if let l = Logger.Level(rawValue: text.lowercased()) { level = l } else {
                report(value, "unknown log level '\(text)'; expected one of: \(levels.joined(separator: ", "))"
                       + ConfigSuggestions.didYouMean(text, among: levels))
            }
        }
        return level
    }

    // MARK: - Typed scalars

    private func string(_ value: Node, key: String, expected: String) -> String? {
        if case .scalar = value, let s = value.stringValue { return s }
        report(value, "expected \(expected) for '\(key)', found \(value.foundDescription)")
        return nil
    }

    private func integer(_ value: Node, key: String) -> Int? {
        if case .scalar(let s) = value, !value.isNull, let n = Int.construct(from: s) { return n }
        report(value, "expected an integer for '\(key)', found \(value.foundDescription)")
        return nil
    }

    private func number(_ value: Node, key: String) -> Double? {
        if case .scalar(let s) = value, !value.isNull, let x = Double.construct(from: s) { return x }
        report(value, "expected a number for '\(key)', found \(value.foundDescription)")
        return nil
    }

    private func stringList(_ value: Node, key: String, expected: String) -> [(Node, String)]? {
        if value.isNull { return [] }
        guard case .sequence(let seq) = value else {
            report(value, "expected \(expected) for '\(key)', found \(value.foundDescription)")
            return nil
        }
        var result: [(Node, String)] = []
        var ok = true
        for item in seq {
            if case .scalar = item, let s = item.stringValue { result.append((item, s)) } else {
                report(item, "expected a string in '\(key)', found \(item.foundDescription)")
                ok = false
            }
        }
        return ok ? result : nil
    }

    // MARK: - Plugin entries

    struct BuiltEntry {
        var plugin: ConfiguredPlugin
        /// The plugin's own config (substituted), searched to place topic errors.
        var node: Node
        var subject: String
        var position: SourcePosition
    }

    enum EntryOutcome {
        case built(BuiltEntry)
        case disabled(String?)
        case failed
    }

    private func entries(of value: Node, section: String) -> [(node: Node, mapping: Node.Mapping)] {
        if value.isNull { return [] }
        guard case .sequence(let seq) = value else {
            report(value, "'\(section)' must be a list of plugin entries (each starting with '- type: …'), found \(value.foundDescription)")
            return []
        }
        var result: [(node: Node, mapping: Node.Mapping)] = []
        for item in seq {
            if case .mapping(let m) = item { result.append((item, m)) } else {
                var message = "each entry in '\(section)' must be a mapping with 'type', 'id' and the plugin's settings, found \(item.foundDescription)"
                if let text = item.stringValue, factoriesByType[text] != nil {
                    message += "; write '- type: \(text)' with 'id: …' on the next line"
                }
                report(item, message)
            }
        }
        return result
    }

    private func typeList(_ kind: PluginKind) -> String {
        let names = loader.factories.filter { $0.kinds.contains(kind) }.map(\.type)
        return names.isEmpty ? "(none registered)" : names.joined(separator: ", ")
    }

    /// An entry's id before the entries are built (a sink may come before the sources), when
    /// it reads as one and the entry is not disabled; an entry that does not read reports why
    /// when it is built.
    private func enabledID(_ mapping: Node.Mapping) -> String? {
        var id: String?, enabled = true
        for pair in ConfigYAML.pairs(mapping) {
            var failures: [(SourcePosition, String, EnvironmentSubstitution.Failure)] = []
            switch pair.key.stringValue {
            case "id":
                id = ConfigYAML.substitute(pair.value, environment: environment, path: "id", failures: &failures).stringValue
            case "enabled":
                if case .scalar(let s) = ConfigYAML.substitute(pair.value, environment: environment, path: "enabled", failures: &failures),
                   let b = Bool.construct(from: s) { enabled = b }
            default: break
            }
        }
        guard enabled, let id, Topic.isValidSegment(id) else { return nil }
        return id
    }

    private func processEntry(_ entry: (node: Node, mapping: Node.Mapping), kind: PluginKind, section: String,
                              ids: inout [String: (position: SourcePosition, subject: String)],
                              endpoints: HubEndpoints, logLevel: Logger.Level) -> EntryOutcome {
        let errorsBefore = errors.count
        let entryPosition = entry.node.position
        var typeNode: Node?, idNode: Node?, enabledNode: Node?, perDeviceNode: Node?, maxDevicesNode: Node?
        var own: [(key: Node, value: Node)] = []
        for pair in ConfigYAML.pairs(entry.mapping) {
            guard let name = keyName(pair.key, in: "a \(kind.rawValue) entry") else { continue }
            switch name {
            case "type": typeNode = pair.value
            case "id": idNode = pair.value
            case "enabled": enabledNode = pair.value
            case "per_device" where kind == .service: perDeviceNode = pair.value
            case "max_devices" where kind == .service: maxDevicesNode = pair.value
            default: own.append(pair)
            }
        }

        // type
        var factory: PluginFactory?
        var type: String?
        if let raw = typeNode {
            let (node, ok) = substitute(raw, path: "type")
            if ok, let t = string(node, key: "type", expected: "a plugin type (\(section): \(typeList(kind)))") {
                type = t
                if let f = factoriesByType[t] {
                    if f.kinds.contains(kind) {
                        factory = f
                    } else {
                        let homes = PluginKind.allCases.filter { f.kinds.contains($0) }
                        let where_ = homes.map { "'\(sectionName($0)):'" }.joined(separator: " or ")
                        let what = homes.map(\.rawValue).joined(separator: "/")
                        report(node, "'\(t)' is a \(what) plugin and belongs under \(where_), not under '\(section):'")
                    }
                } else {
                    report(node, "unknown plugin type '\(t)' in '\(section)'; available \(kind.rawValue) types: \(typeList(kind))"
                           + ConfigSuggestions.didYouMean(t, among: loader.factories.map(\.type)))
                }
            }
        } else {
            report(entryPosition, "missing 'type' in \(kind.rawValue) entry; expected one of the \(kind.rawValue) types: \(typeList(kind))")
        }

        // id
        var id: String?
        let typeWords = type.map { "\($0) \(kind.rawValue)" } ?? kind.rawValue
        if let raw = idNode {
            let (node, ok) = substitute(raw, path: "id")
            if ok, let text = string(node, key: "id", expected: "a plugin id such as 'gps0'") {
                if Topic.isValidSegment(text) {
                    if ConfigLoader.reservedIDs.contains(text) {
                        report(node, "id '\(text)' is reserved: the runtime publishes as '\(text)' itself (\(ConfigLoader.reservedIDs.sorted().joined(separator: ", ")) are taken); choose another id")
                    } else if let first = ids[text] {
                        report(node, "duplicate id '\(text)'; the \(first.subject) at line \(first.position.line) already uses it (ids must be unique across sources, services and sinks)")
                    } else {
                        id = text
                        ids[text] = (entryPosition, "\(typeWords) '\(text)'")
                    }
                } else {
                    let fixed = String(text.lowercased().map { c -> Character in
                        c.isASCII && (c.isLetter || c.isNumber || c == "_" || c == "-") ? c : "-"
                    })
                    let suggestion = Topic.isValidSegment(fixed) && fixed != text ? " (did you mean '\(fixed)'?)" : ""
                    report(node, "invalid id '\(text)': ids are 1 to 64 characters of lower-case letters, digits, '_' and '-', because they become topic segments (obs.fix.<id>)\(suggestion)")
                }
            }
        } else {
            report(entryPosition, "missing 'id' in \(typeWords) entry; every entry needs an id, unique across sources, services and sinks (lower-case letters, digits, '_' and '-')")
        }
        let subject = id.map { "\(typeWords) '\($0)'" } ?? "\(typeWords) entry"

        // enabled
        var enabled = true
        if let raw = enabledNode {
            let (node, ok) = substitute(raw, path: "enabled")
            if ok {
                if case .scalar(let s) = node, !node.isNull, let b = Bool.construct(from: s) { enabled = b } else {
                    report(node, "expected true or false for 'enabled' in \(subject), found \(node.foundDescription)")
                }
            }
        }

        // per_device (services): one instance per device, PerDeviceService
        var perDevice = false
        if let raw = perDeviceNode {
            let (node, ok) = substitute(raw, path: "per_device")
            if ok {
                if case .scalar(let s) = node, !node.isNull, let b = Bool.construct(from: s) { perDevice = b } else {
                    report(node, "expected true or false for 'per_device' in \(subject), found \(node.foundDescription)")
                }
            }
        }
        // max_devices (with per_device): the bound on the devices a service keeps a state for
        var maxDevices = PluginSetup.defaultMaxDevices
        if let raw = maxDevicesNode {
            let (node, ok) = substitute(raw, path: "max_devices")
            if ok {
                if case .scalar(let s) = node, !node.isNull, let n = Int(s.string), n >= 1 {
                    maxDevices = n
                    if !perDevice {
                        report(node, "'max_devices' in \(subject) applies only with 'per_device: true'")
                    }
                } else {
                    report(node, "expected a whole number of at least 1 for 'max_devices' in \(subject), found \(node.foundDescription)")
                }
            }
        }

        // the plugin's own keys
        guard let factory else { return .failed }
        let known = factory.keys.map(\.name)
        for pair in own {
            guard let name = pair.key.stringValue, !known.contains(name) else { continue }
            if known.isEmpty {
                report(pair.key, "unknown key '\(name)' in \(subject); \(factory.type) takes no settings besides type, id and enabled"
                       + ConfigSuggestions.didYouMean(name, among: Self.entryKeys))
            } else {
                unknownKey(name, at: pair.key, in: subject, allowed: known, suggestFrom: Self.entryKeys)
            }
        }
        for key in factory.keys where key.isRequired {
            let about = "(\(key.name): \(key.type) — \(key.doc))"
            if let pair = own.last(where: { $0.key.stringValue == key.name }) {
                if pair.value.isNull {
                    report(pair.key, "missing value for required key '\(key.name)' in \(subject) \(about)")
                }
            } else {
                report(entryPosition, "missing required key '\(key.name)' in \(subject) \(about)")
            }
        }

        guard enabled else { return .disabled(id) }

        var ownSubstituted: [(Node, Node)] = []
        for pair in own {
            let (value, _) = substitute(pair.value, path: pair.key.stringValue ?? "")
            ownSubstituted.append((pair.key, value))
        }
        guard errors.count == errorsBefore, let id, let type else { return .failed }

        let node = Node.mapping(Node.Mapping(ownSubstituted, entry.mapping.tag, entry.mapping.style, entry.mapping.mark))
        var pluginLogger = Logger(label: "locus.\(id)")
        pluginLogger.logLevel = logLevel
        let setup = PluginSetup(id: id, kind: kind, configDirectory: directory, endpoints: endpoints, logger: pluginLogger,
                                stateDirectory: mode == .full ? stateDirectory : nil,
                                journal: mode == .full ? journal : nil, perDevice: perDevice, maxDevices: maxDevices,
                                maxMessageBytes: maxMessageBytes, sourceIds: sourceIds)
        let builder = PluginBuilder(factory: factory, node: node, setup: setup, subject: subject,
                                    entryPosition: entryPosition, file: file, perDevice: perDevice)
        switch builder.build() {
        case .failure(let failure):
            errors += failure.errors
            return .failed
        case .success(let instance):
            // A source instance stands for "a task of its own" (an outside process under `exec`)
            // and may serve any section its factory lists.
            guard instance.kind == kind || (instance.kind == .source && factory.kinds.contains(kind)) else {
                report(entryPosition, "plugin type '\(type)' built a \(instance.kind.rawValue) for the \(kind.rawValue) entry '\(id)' (a bug in the plugin: it should build what PluginSetup.kind asks for)")
                return .failed
            }
            var plugin = ConfiguredPlugin(id: id, type: type, kind: kind, factory: factory, setup: setup, instance: instance,
                                          rebuild: { try builder.rebuild() },
                                          line: entryPosition.line, column: entryPosition.column)
            plugin.watchedFiles = builder.files
            plugin.configurationFingerprint = ConfigFingerprint.of(node, perDevice: perDevice, maxDevices: maxDevices)
            return .built(BuiltEntry(plugin: plugin, node: node, subject: subject, position: entryPosition))
        }
    }

    private func sectionName(_ kind: PluginKind) -> String {
        switch kind {
        case .source: "sources"
        case .service: "services"
        case .sink: "sinks"
        }
    }

    // MARK: - Topics

    /// Every subscription must be a valid prefix and (when every plugin could be built, so what
    /// is produced is known) able to match something produced.
    private func validateTopics(_ built: [BuiltEntry], hub: HubSettings, checkMatches: Bool) {
        var produced = Self.runtimeTopics
        switch mode {
        case .full: produced += hub.runtime.externalTopics
        case .servicesOnly: produced = Self.replayTopics + Self.runtimeTopics
        }
        for entry in built {
            switch entry.plugin.instance {
            case .source(let s): produced += s.produces
            case .service(let s): produced += s.produces
            case .sink: break
            }
        }
        var unique: [String] = []
        for p in produced where !unique.contains(p) { unique.append(p) }
        produced = unique

        for entry in built {
            let subscriptions: [String]
            let optional: [String]
            switch entry.plugin.instance {
            case .source: continue
            case .service(let s):
                subscriptions = s.subscriptions
                optional = (s as? OptionalSubscriptions)?.optionalSubscriptions ?? []
            case .sink(let s):
                subscriptions = s.subscriptions
                optional = (s as? OptionalSubscriptions)?.optionalSubscriptions ?? []
            }
            for topic in subscriptions {
                if !Topic.isValidPrefix(topic) {
                    report(locate(topic, in: entry), "invalid subscription topic '\(topic)' in \(entry.subject); expected \"\" (everything) or lower-case segments of a-z, 0-9, '_' and '-' joined by dots, optionally ending in '.' (e.g. 'obs.fix.')")
                } else if checkMatches, !optional.contains(topic), !produced.contains(where: { Topic.prefix(topic, canMatch: $0) }) {
                    let outside = mode == .full
                        ? "; if an outside publisher sends it, list it in hub.external_topics"
                        : " (a replay provides \(Self.replayTopics.joined(separator: " and ")))"
                    report(locate(topic, in: entry), "subscription '\(topic)' of \(entry.subject) matches nothing that is produced; produced topics: \(produced.joined(separator: ", "))\(outside)")
                }
            }
        }
    }

    /// Where a subscription came from: the scalar in the plugin's config equal to it (e.g. under
    /// `topics:`), else one it ends with (`sources: [gps0]` → `obs.fix.gps0`), else the entry.
    private func locate(_ topic: String, in entry: BuiltEntry) -> SourcePosition {
        if let node = ConfigYAML.firstScalar(in: entry.node, where: { $0 == topic }) {
            return SourcePosition(node.mark, fallback: entry.position)
        }
        if let node = ConfigYAML.firstScalar(in: entry.node, where: { !$0.isEmpty && topic.hasSuffix("." + $0) }) {
            return SourcePosition(node.mark, fallback: entry.position)
        }
        return entry.position
    }
}
