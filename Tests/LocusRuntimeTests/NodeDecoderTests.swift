import Foundation
import Testing
import Yams
@testable import LocusRuntime
import LocusCore

/// `NodeDecoder` replaced Yams' `YAMLDecoder` for plugin and hub settings (issue 14: it never
/// compiles Yams' resolver regexes). Differential: every document here decodes to the same value,
/// or fails with the same kind of `DecodingError` at the same coding path, with both.
@Suite struct NodeDecoderTests {
    struct Settings: Decodable, Equatable {
        struct Fence: Decodable, Equatable {
            var id: String
            var radius: Double
            var tags: [String]?
        }
        var name: String
        var count: Int
        var ratio: Double?
        var enabled: Bool
        var small: UInt8?
        var fences: [Fence]
        var limits: [String: Int]?
        var nested: [[Int]]?
    }

    /// What a decode gave, comparable across decoders: the value, or the error's kind and path.
    enum Outcome: Equatable {
        case value(Settings)
        case failure(kind: String, path: String)
    }

    static func outcome(_ body: () throws -> Settings) -> Outcome {
        do { return .value(try body()) } catch let error as DecodingError {
            switch error {
            case .typeMismatch(let type, let c): return .failure(kind: "typeMismatch \(type)", path: Self.path(c.codingPath))
            case .valueNotFound(let type, let c): return .failure(kind: "valueNotFound \(type)", path: Self.path(c.codingPath))
            case .keyNotFound(let key, let c): return .failure(kind: "keyNotFound \(key.stringValue)", path: Self.path(c.codingPath))
            case .dataCorrupted(let c): return .failure(kind: "dataCorrupted", path: Self.path(c.codingPath))
            @unknown default: return .failure(kind: "unknown", path: "")
            }
        } catch {
            return .failure(kind: "other \(error)", path: "")
        }
    }

    static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }

    static let documents = [
        // Well-formed, with YAML's spellings of booleans, numbers and null.
        "name: gate\ncount: 3\nratio: 0.5\nenabled: yes\nfences: [{id: a, radius: 10}, {id: b, radius: 2e1, tags: [x, 'y']}]\nlimits: {a: 1, b: 0x10}\nnested: [[1, 2], []]\n",
        "name: 'quoted: text'\ncount: -7\nenabled: False\nsmall: 255\nratio: ~\nfences: []\n",
        "name: x\ncount: 1\nenabled: true\nratio:\nfences: []\nlimits:\n",
        "name: 12\ncount: 1_000\nenabled: on\nfences: []\n",
        // Merge keys, as the loader expands them.
        "base: &b {radius: 5}\nname: m\ncount: 1\nenabled: true\nfences: [{<<: *b, id: merged}]\n",
        // Wrong types and missing keys, at every depth.
        "name: x\ncount: many\nenabled: true\nfences: []\n",
        "name: x\ncount: 1.5\nenabled: true\nfences: []\n",
        "name: x\ncount: 1\nenabled: maybe\nfences: []\n",
        "name: x\ncount: 1\nenabled: true\nsmall: 256\nfences: []\n",
        "name: x\ncount: 1\nenabled: true\nfences: {id: a}\n",
        "name: x\ncount: 1\nenabled: true\nfences: [{id: a}]\n",
        "name: x\ncount: 1\nenabled: true\nfences: [{id: a, radius: far}]\n",
        "name: x\ncount: 1\nenabled: true\nfences: [{id: [a], radius: 1}]\n",
        "name: x\ncount: 1\nenabled: true\nfences: []\nlimits: [1]\n",
        "name: x\ncount: 1\nenabled: true\nfences: []\nnested: [[1, x]]\n",
        "name: [x]\ncount: 1\nenabled: true\nfences: []\n",
        "count: 1\nenabled: true\nfences: []\n",
        "name: x\ncount:\nenabled: true\nfences: []\n",
        "just a scalar\n",
        "- a list\n",
    ]

    /// A document as the loader hands it to a decoder: parsed, `${…}` substituted, merge keys expanded.
    static func prepared(_ text: String) throws -> Node {
        let parsed = try #require(try ConfigYAML.parse(text).get(), "\(text)")
        var failures: [(SourcePosition, String, EnvironmentSubstitution.Failure)] = []
        return ConfigYAML.substitute(parsed, environment: [:], path: "", failures: &failures)
    }

    @Test func decodesAndFailsLikeYamsDecoder() throws {
        for text in Self.documents {
            let root = try Self.prepared(text)
            let ours = Self.outcome { try NodeDecoder().decode(Settings.self, from: root) }
            let yams = Self.outcome { try YAMLDecoder().decode(Settings.self, from: root) }
            #expect(ours == yams, "\(text)")
        }
    }

    /// The values themselves, so that agreeing with Yams is not agreeing on nothing.
    @Test func readsWhatTheTextSays() throws {
        let root = try Self.prepared(Self.documents[0])
        let settings = try NodeDecoder().decode(Settings.self, from: root)
        #expect(settings == Settings(name: "gate", count: 3, ratio: 0.5, enabled: true, small: nil,
                                     fences: [.init(id: "a", radius: 10, tags: nil), .init(id: "b", radius: 20, tags: ["x", "y"])],
                                     limits: ["a": 1, "b": 16], nested: [[1, 2], []]))
        let merged = try NodeDecoder().decode(Settings.self, from: try Self.prepared(Self.documents[4]))
        #expect(merged.fences == [.init(id: "merged", radius: 5, tags: nil)])
        let wrong = try Self.prepared(Self.documents[11])
        let failure = Self.outcome { try NodeDecoder().decode(Settings.self, from: wrong) }
        #expect(failure == .failure(kind: "typeMismatch Double", path: "fences.[0].radius"))
    }

    /// `JSONValue` (free-form settings: a region's geometry and properties) is handed over whole
    /// by this decoder instead of guessed type by type (each wrong guess a thrown error); it
    /// must be the value the guessing gives through Yams' decoder, for every document.
    @Test func aJSONValueIsWhatGuessingTypeByTypeGives() throws {
        let extra = ["a: [1, -2.5, .inf, 0x10, yes, off, ~, 'text', \"1\", [], {}]\nb: {c: {d: [null, true]}}\n", "plain\n", "- 3\n- x\n"]
        for text in Self.documents + extra {
            let root = try Self.prepared(text)
            let ours = try NodeDecoder().decode(JSONValue.self, from: root)
            let yams = try YAMLDecoder().decode(JSONValue.self, from: root)
            #expect(ours == yams, "\(text)")
        }
        let root = try Self.prepared(extra[0])
        let value = try NodeDecoder().decode(JSONValue.self, from: root)
        #expect(value["b"] == .object(["c": .object(["d": .array([.null, .bool(true)])])]))
        #expect(value["a"].map { if case .array(let a) = $0 { a.count } else { 0 } } == 11)
    }
}
