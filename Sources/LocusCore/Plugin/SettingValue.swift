import Foundation

/// A type a `@Setting` can hold: how docs name it and how it is read from a config.
///
/// `Double`, `Int`, `Bool`, `String`, arrays and optionals of them, and `String`-backed
/// `CaseIterable` enums are ready. A type of your own conforms by naming itself and, if it is
/// not plain `Decodable` (a number or a word, say), reading itself; throw
/// `ConfigValueError(key:_:)` for a value it refuses, which is reported at the key's position.
public protocol SettingValue: Sendable {
    /// How `locus plugins` and READMEs name the type: "number", "list of strings", "auto, nmea or gpx".
    static var settingType: String { get }
    /// Reads the value at `key` (present in `container`).
    static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> Self
    /// The value as one would write it in YAML, for docs of defaults.
    var settingText: String { get }
}

extension SettingValue where Self: Decodable {
    public static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> Self {
        try container.decode(Self.self, forKey: key)
    }
}

extension Double: SettingValue {
    public static var settingType: String { "number" }
    public var settingText: String {
        if self == rounded(), abs(self) < 1e15 { return String(Int64(self)) }
        return "\(self)"
    }
}

extension Int: SettingValue {
    public static var settingType: String { "integer" }
    public var settingText: String { String(self) }
}

extension Bool: SettingValue {
    public static var settingType: String { "boolean" }
    public var settingText: String { self ? "true" : "false" }
}

extension String: SettingValue {
    public static var settingType: String { "string" }
    public var settingText: String { isEmpty ? "\"\"" : self }
}

extension Array: SettingValue where Element: SettingValue {
    public static var settingType: String {
        let element = Element.settingType
        // "list of strings", "list of numbers", "list of booleans", "list of <things>".
        return "list of " + (element.hasSuffix("s") ? element : element + "s")
    }

    public static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> [Element] {
        var list = try container.nestedUnkeyedContainer(forKey: key)
        var elements: [Element] = []
        // Each element through the keyed reader of its own type, so custom element types work.
        while !list.isAtEnd {
            let wrapper = try list.decode(SettingElement<Element>.self)
            elements.append(wrapper.value)
        }
        return elements
    }

    public var settingText: String {
        "[" + map { $0 is String ? "\"\($0.settingText)\"" : $0.settingText }.joined(separator: ", ") + "]"
    }
}

/// An array element read by its `SettingValue` reader (through a one-key container, which is
/// what the reader takes).
private struct SettingElement<Value: SettingValue>: Decodable {
    let value: Value
    init(from decoder: any Decoder) throws {
        if let decodable = Value.self as? any Decodable.Type {
            value = try decodable.init(from: decoder) as! Value
        } else {
            throw DecodingError.typeMismatch(Value.self, .init(codingPath: decoder.codingPath,
                                                               debugDescription: "\(Value.settingType) cannot be a list element"))
        }
    }
}

extension Dictionary: SettingValue where Key == String, Value: SettingValue & Decodable {
    public static var settingType: String { "map of " + [Value].settingType.dropFirst("list of ".count) }
    public var settingText: String {
        "{" + sorted { $0.key < $1.key }.map { "\($0.key): \($0.value.settingText)" }.joined(separator: ", ") + "}"
    }
}

extension Optional: SettingValue where Wrapped: SettingValue {
    public static var settingType: String { Wrapped.settingType }

    public static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> Wrapped? {
        try container.decodeNil(forKey: key) ? nil : try Wrapped.readSetting(from: container, forKey: key)
    }

    public var settingText: String { map(\.settingText) ?? "none" }
}

/// A `String`-backed enum lists its cases as its type ("auto, locus, nmea, gpsd or gpx") and
/// refuses other words naming them.
extension SettingValue where Self: RawRepresentable & CaseIterable, RawValue == String {
    public static var settingType: String {
        let names = allCases.map(\.rawValue)
        guard names.count > 1 else { return names.first ?? "" }
        return names.dropLast().joined(separator: ", ") + " or " + names.last!
    }

    public static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> Self {
        let text = try container.decode(String.self, forKey: key)
        guard let value = Self(rawValue: text) else {
            throw ConfigValueError(key: key.stringValue, "\(key.stringValue) must be one of \(allCases.map(\.rawValue).joined(separator: ", ")); found '\(text)'")
        }
        return value
    }

    public var settingText: String { rawValue }
}

/// The same for such an enum that is also `Decodable` (which would otherwise have two readers).
extension SettingValue where Self: RawRepresentable & CaseIterable & Decodable, RawValue == String {
    public static func readSetting(from container: KeyedDecodingContainer<SettingKey>, forKey key: SettingKey) throws -> Self {
        let text = try container.decode(String.self, forKey: key)
        guard let value = Self(rawValue: text) else {
            throw ConfigValueError(key: key.stringValue, "\(key.stringValue) must be one of \(allCases.map(\.rawValue).joined(separator: ", ")); found '\(text)'")
        }
        return value
    }
}
