/// One configuration key, declared once on the property that holds it: its name, doc line,
/// type (from the property's type), default (the property's initial value) and check.
///
/// ```swift
/// public struct OdometerConfiguration: DeclaredConfiguration {
///     @Setting("every", "Metres between two readings.", check: .above(0))
///     public var every: Double = 1000
///     public init() {}
/// }
/// ```
///
/// A property without an initial value is a required key. `DeclaredConfiguration` reads every
/// `@Setting` of a type (by reflection, once per config load) to decode it and to list its keys
/// for `locus plugins` and the README check.
@propertyWrapper
public struct Setting<Value: SettingValue>: Sendable {
    public let name: String
    public let doc: String
    /// The default as docs show it; nil for a required key.
    public let defaultText: String?
    let check: SettingCheck<Value>?
    /// Shared with the copy reflection hands out while decoding, which is how decoding sets it;
    /// replaced (never mutated) on assignment, so copies of a configuration stay independent.
    private var box: SettingBox<Value>

    public var wrappedValue: Value {
        get {
            guard let value = box.value else {
                preconditionFailure("required setting '\(name)' read before the configuration was decoded")
            }
            return value
        }
        set { box = SettingBox(newValue) }
    }

    /// A key with a default: the property's initial value (`defaultText` overrides how docs
    /// show it, e.g. "the plugin id" for a nil that the plugin fills in).
    public init(wrappedValue: Value, _ name: String, _ doc: String, default defaultText: String? = nil,
                check: SettingCheck<Value>? = nil) {
        self.name = name
        self.doc = doc
        self.defaultText = defaultText ?? wrappedValue.settingText
        self.check = check
        box = SettingBox(wrappedValue)
    }

    /// A required key: no initial value.
    public init(_ name: String, _ doc: String, check: SettingCheck<Value>? = nil) {
        self.name = name
        self.doc = doc
        defaultText = nil
        self.check = check
        box = SettingBox(nil)
    }
}

/// Safe to share: `value` is set only while its configuration is decoded, before that is shared.
final class SettingBox<Value: Sendable>: @unchecked Sendable {
    // Written only while the configuration that owns it is decoded, before it is shared.
    var value: Value?
    init(_ value: Value?) { self.value = value }
}

/// Two settings are equal when their values are (name, doc and check are the declaration's).
extension Setting: Equatable where Value: Equatable {
    public static func == (a: Setting, b: Setting) -> Bool { a.box.value == b.box.value }
}

/// What `DeclaredConfiguration` sees of each `@Setting`, whatever its value type.
protocol AnySetting {
    var configKey: ConfigKey { get }
    func decode(from container: KeyedDecodingContainer<SettingKey>) throws
}

extension Setting: AnySetting {
    var configKey: ConfigKey { ConfigKey(name, Value.settingType, default: defaultText, doc) }

    func decode(from container: KeyedDecodingContainer<SettingKey>) throws {
        let key = SettingKey(name)
        guard container.contains(key) else {
            if box.value == nil {
                throw DecodingError.keyNotFound(key, .init(codingPath: container.codingPath, debugDescription: "'\(name)' is required"))
            }
            return
        }
        let value = try Value.readSetting(from: container, forKey: key)
        if let check, let problem = check.problem(value) { throw ConfigValueError(key: name, "\(name) \(problem)") }
        box.value = value
    }
}

/// A configuration key as a coding key.
public struct SettingKey: CodingKey, Sendable {
    public let stringValue: String
    public var intValue: Int? { nil }
    public init(_ name: String) { stringValue = name }
    public init?(stringValue: String) { self.stringValue = stringValue }
    public init?(intValue: Int) { nil }
}
