/// Documentation of one configuration key, shown by `locus plugins` and used to reject unknown keys.
public struct ConfigKey: Sendable, Equatable {
    public var name: String
    /// Human-readable type: `string`, `number`, `integer`, `boolean`, `list of strings`, …
    public var type: String
    /// The default, as it would be written in YAML; nil when the key is required.
    public var defaultValue: String?
    public var doc: String

    public init(_ name: String, _ type: String, default defaultValue: String?, _ doc: String) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.doc = doc
    }

    public var isRequired: Bool { defaultValue == nil }
}

/// A plugin's own configuration block: every key documented in `keys`. Keys not listed there
/// are rejected by the runtime with their file, line and column, so a typo never silently falls
/// back to a default. Conform through `DeclaredConfiguration` (keys declared once with
/// `@Setting`), as every built-in plugin does; a hand-written `keys` and `init(from:)` still work.
public protocol PluginConfiguration: Decodable, Sendable {
    static var keys: [ConfigKey] { get }
}

/// Describes a plugin type and builds instances of it from config. One per plugin type, listed
/// in `BuiltinPlugins.all`.
public struct PluginFactory: Sendable {
    public var type: String
    /// Sections the plugin may appear in.
    public var kinds: Set<PluginKind>
    public var summary: String
    public var keys: [ConfigKey]
    /// Event types the plugin defines beyond the core ones (decoded and accepted by the hub).
    public var payloadTypes: [any Payload.Type]
    /// Decodes the plugin's config from `decoder` and builds an instance of the kind
    /// `PluginSetup.kind` asks for. A plugin that runs as a task of its own whatever its role
    /// (an outside process, see `exec`) may build `.source` for any section in `kinds`.
    public var build: @Sendable (any Decoder, PluginSetup) throws -> PluginInstance

    public init(type: String, kinds: Set<PluginKind>, summary: String, keys: [ConfigKey],
                payloadTypes: [any Payload.Type] = [],
                build: @escaping @Sendable (any Decoder, PluginSetup) throws -> PluginInstance) {
        self.type = type
        self.kinds = kinds
        self.summary = summary
        self.keys = keys
        self.payloadTypes = payloadTypes
        self.build = build
    }

    public static func source<C: PluginConfiguration>(
        _ type: String, summary: String, config: C.Type, payloadTypes: [any Payload.Type] = [],
        make: @escaping @Sendable (C, PluginSetup) throws -> any SourcePlugin
    ) -> PluginFactory {
        PluginFactory(type: type, kinds: [.source], summary: summary, keys: C.keys, payloadTypes: payloadTypes) { d, s in
            .source(try make(try C(from: d), s))
        }
    }

    public static func service<C: PluginConfiguration>(
        _ type: String, summary: String, config: C.Type, payloadTypes: [any Payload.Type] = [],
        make: @escaping @Sendable (C, PluginSetup) throws -> any ServicePlugin
    ) -> PluginFactory {
        PluginFactory(type: type, kinds: [.service], summary: summary, keys: C.keys, payloadTypes: payloadTypes) { d, s in
            .service(try make(try C(from: d), s))
        }
    }

    /// One type in both sections (a broker or stream client: `mqtt`, `nats`), each kind with its
    /// own keys. A key of the other kind is refused where it is written, naming the kind it
    /// belongs to; `locus plugins` lists the sink's keys, then the source's that the sink lacks.
    public static func sourceAndSink<Source: PluginConfiguration, Sink: PluginConfiguration>(
        _ type: String, summary: String, source: Source.Type, sink: Sink.Type,
        makeSource: @escaping @Sendable (Source, PluginSetup) throws -> any SourcePlugin,
        makeSink: @escaping @Sendable (Sink, PluginSetup) throws -> any SinkPlugin
    ) -> PluginFactory {
        var keys = Sink.keys
        for key in Source.keys where !keys.contains(where: { $0.name == key.name }) { keys.append(key) }
        let sinkNames = Set(Sink.keys.map(\.name))
        let sourceNames = Set(Source.keys.map(\.name))
        return PluginFactory(type: type, kinds: [.sink, .source], summary: summary, keys: keys) { decoder, setup in
            let own = setup.kind == .source ? sourceNames : sinkNames
            let given = try decoder.container(keyedBy: SettingKey.self).allKeys.map(\.stringValue)
            if let other = given.first(where: { !own.contains($0) && !["type", "id", "enabled"].contains($0) }) {
                let (theirs, mine) = setup.kind == .source ? ("sinks", "sources") : ("sources", "sinks")
                throw ConfigValueError(key: other, "'\(other)' is a key of \(type) \(theirs), not of \(type) \(mine)")
            }
            if setup.kind == .source { return .source(try makeSource(try Source(from: decoder), setup)) }
            return .sink(try makeSink(try Sink(from: decoder), setup))
        }
    }

    public static func sink<C: PluginConfiguration>(
        _ type: String, summary: String, config: C.Type,
        make: @escaping @Sendable (C, PluginSetup) throws -> any SinkPlugin
    ) -> PluginFactory {
        PluginFactory(type: type, kinds: [.sink], summary: summary, keys: C.keys) { d, s in
            .sink(try make(try C(from: d), s))
        }
    }
}

/// A configuration value that is wrong in a way `Decodable` cannot see (a file that does not
/// exist, a number out of range). The runtime reports it at the key's line and column.
public struct ConfigValueError: Error, Sendable, CustomStringConvertible {
    public var key: String
    public var message: String
    public init(key: String, _ message: String) {
        self.key = key
        self.message = message
    }
    public var description: String { message }
}
