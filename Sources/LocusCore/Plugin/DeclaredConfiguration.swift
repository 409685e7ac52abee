/// A plugin configuration whose keys are its `@Setting` properties: decoding, defaults, checks
/// and the key list (`locus plugins`, README check) all come from those declarations.
///
/// Implement `init()` (usually `public init() {}`: every setting has its default or is
/// required) and, for checks that involve more than one key, `validate()`.
public protocol DeclaredConfiguration: PluginConfiguration {
    init()
    /// Checks across keys, after every key is decoded and checked on its own; throw
    /// `ConfigValueError(key:_:)` naming the key to point at. The default checks nothing.
    func validate() throws
}

extension DeclaredConfiguration {
    public func validate() throws {}

    public static var keys: [ConfigKey] { DeclaredSettings.of(Self()).map(\.configKey) }

    /// Decodes every setting; all refused keys are reported, not just the first (one error as
    /// thrown, several as `SettingErrors`). `validate()` runs when every key was accepted.
    public init(from decoder: any Decoder) throws {
        self.init()
        let container = try decoder.container(keyedBy: SettingKey.self)
        var errors: [any Error] = []
        for setting in DeclaredSettings.of(self) {
            do { try setting.decode(from: container) } catch { errors.append(error) }
        }
        if errors.count == 1 { throw errors[0] }
        if errors.count > 1 { throw SettingErrors(errors: errors) }
        for group in DeclaredSettings.groups(of: self) { try group.validate() }
        try validate()
    }

    /// A configuration with its defaults, changed by `edit`: for tests and for code that builds
    /// a plugin without a config file (`.with { $0.every = 500 }`).
    public static func with(_ edit: (inout Self) throws -> Void) rethrows -> Self {
        var c = Self()
        try edit(&c)
        return c
    }
}

/// Several keys of one configuration refused, each error as decoding it threw it.
public struct SettingErrors: Error, Sendable {
    public var errors: [any Error]
    public init(errors: [any Error]) { self.errors = errors }
}

enum DeclaredSettings {
    /// The `@Setting`s of `configuration`, in declaration order, those of its `SettingGroup`s
    /// where the group stands.
    static func of(_ configuration: Any) -> [any AnySetting] {
        Mirror(reflecting: configuration).children.flatMap { child -> [any AnySetting] in
            if let setting = child.value as? any AnySetting { return [setting] }
            if let group = child.value as? any SettingGroup { return of(group) }
            return []
        }
    }

    /// The `SettingGroup`s of `configuration` (and of its groups), in declaration order.
    static func groups(of configuration: Any) -> [any SettingGroup] {
        Mirror(reflecting: configuration).children.flatMap { child -> [any SettingGroup] in
            guard let group = child.value as? any SettingGroup else { return [] }
            return [group] + groups(of: group)
        }
    }
}
