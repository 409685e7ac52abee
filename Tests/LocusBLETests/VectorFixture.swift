import Foundation
import LocusBLE
import Testing

/// A JSON value from the fixtures, Sendable so vectors can be test arguments.
enum JSONValue: Sendable, Equatable, Decodable, CustomStringConvertible {
    case null, bool(Bool), number(Double), string(String), array([JSONValue]), object([String: JSONValue])

    // JSONDecoder is strict about kinds (a number does not decode as Bool), which keeps
    // true/1 apart on every platform.
    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if c.decodeNil() { self = .null }
        else if let b = try? c.decode(Bool.self) { self = .bool(b) }
        else if let d = try? c.decode(Double.self) { self = .number(d) }
        else if let s = try? c.decode(String.self) { self = .string(s) }
        else if let a = try? c.decode([JSONValue].self) { self = .array(a) }
        else { self = .object(try c.decode([String: JSONValue].self)) }
    }

    var string: String? { if case .string(let s) = self { return s }; return nil }
    var int: Int? { if case .number(let d) = self, d == d.rounded() { return Int(d) }; return nil }
    var double: Double? { if case .number(let d) = self { return d }; return nil }
    var bool: Bool? { if case .bool(let b) = self { return b }; return nil }
    var isNull: Bool { self == .null }

    var description: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return "\(b)"
        case .number(let d): return d == d.rounded() ? "\(Int(d))" : "\(d)"
        case .string(let s): return "\"\(s)\""
        case .array(let a): return "[" + a.map(\.description).joined(separator: ", ") + "]"
        case .object(let o): return "{" + o.keys.sorted().map { "\($0): \(o[$0]!)" }.joined(separator: ", ") + "}"
        }
    }
}

/// One entry of `Fixtures/ble-advertisement-vectors.json` (see the README there).
struct Vector: Sendable, CustomTestStringConvertible {
    var id: String
    var format: String
    var rawHex: String
    var chunks: [String]?
    var companyID: Int?
    var expected: [String: JSONValue]

    var testDescription: String { id }
    var bytes: [UInt8] { Hex.bytes(rawHex)! }
    /// The source prefix of the id (`bdt`, `beacontools`, …).
    var sourcePrefix: String { String(id.prefix { $0 != "-" }) }

    static func fixtureURL(_ name: String) -> URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures/\(name)")
    }

    static let all: [Vector] = {
        let data = try! Data(contentsOf: fixtureURL("ble-advertisement-vectors.json"))
        let root = try! JSONDecoder().decode([String: JSONValue].self, from: data)
        guard case .array(let vectors)? = root["vectors"] else { fatalError("no vectors") }
        return vectors.map { e in
            let v = e.object!
            var chunks: [String]?
            if case .array(let a)? = v["raw_hex_chunks"] { chunks = a.compactMap(\.string) }
            return Vector(id: v["id"]!.string!, format: v["format"]!.string!, rawHex: v["raw_hex"]!.string!,
                          chunks: chunks, companyID: v["company_id"]?.int, expected: v["expected"]!.object!)
        }
    }()

    static let specTables: [String: JSONValue] = {
        let data = try! Data(contentsOf: fixtureURL("eddystone-spec-tables.json"))
        return try! JSONDecoder().decode([String: JSONValue].self, from: data)
    }()
}
