import Foundation

/// A decoder that can hand over the value it holds as a whole (`JSONValue.init(from:)`),
/// with the same result as decoding it type by type.
public protocol JSONValueProvidingDecoder: Decoder {
    /// The value at this decoder's position; throws what decoding an object would.
    func decodeJSONValue() throws -> JSONValue
}

/// A JSON document as a value, for control requests and replies (not the hot path).
public enum JSONValue: Sendable, Equatable, Codable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A `Decoder` only says what a value is when asked for a type, so this tries types in
    /// turn, and each wrong guess throws: cheap in a release build, but a test runner that
    /// records a backtrace for every thrown error (Swift Testing does) made one config decode
    /// of a GeoJSON geometry cost ~40 ms. So a decoder that can say what it holds does
    /// (`JSONValueProvidingDecoder`: the config's), and the others are asked for numbers
    /// (coordinates) first: no JSON or YAML scalar reads as both a number and a Bool, so the
    /// order changes no result (YAML reads every scalar as a String, so that stays after both).
    public init(from decoder: any Decoder) throws {
        if let provider = decoder as? any JSONValueProvidingDecoder {
            self = try provider.decodeJSONValue()
            return
        }
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let n = try? c.decode(Double.self) { self = .number(n) }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .null: try c.encodeNil()
        case .bool(let b): try c.encode(b)
        case .number(let n): try c.encode(n)
        case .string(let s): try c.encode(s)
        case .array(let a): try c.encode(a)
        case .object(let o): try c.encode(o)
        }
    }

    public subscript(key: String) -> JSONValue? {
        if case .object(let o) = self { return o[key] }
        return nil
    }

    public var stringValue: String? { if case .string(let s) = self { s } else { nil } }
    public var doubleValue: Double? { if case .number(let n) = self { n } else { nil } }

    /// Compact JSON with sorted keys (stable output for tests and diffs): exactly what
    /// `JSONEncoder` with `.sortedKeys` and `.withoutEscapingSlashes` writes (a test compares
    /// them), written by hand because state records and event properties are encoded on every
    /// batch and `JSONEncoder` was a sixth of a fleet server's CPU. A document holding a
    /// non-finite number, which JSON cannot carry, is `null`, as `JSONEncoder`'s failure was.
    public func encoded() -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(64)
        guard appendJSON(to: &out) else { return Array("null".utf8) }
        return out
    }

    public static func decode(_ bytes: [UInt8]) throws -> JSONValue {
        try JSONDecoder().decode(JSONValue.self, from: Data(bytes))
    }
}
