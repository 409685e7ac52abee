import Foundation
import LocusCore
import Testing

/// `@Setting` and `DeclaredConfiguration`: one declaration per key gives decoding, defaults,
/// checks and the key list.
@Suite struct DeclaredConfigurationTests {
    enum Mode: String, CaseIterable, SettingValue, Decodable { case fast, careful }

    struct Sample: DeclaredConfiguration {
        @Setting("file", "A file to read.")
        var file: String
        @Setting("every", "Metres between readings.", check: .above(0))
        var every: Double = 1000
        @Setting("tries", "How often to try.", check: .within(1...10))
        var tries: Int = 3
        @Setting("verbose", "Say more.")
        var verbose: Bool = false
        @Setting("topics", "Topic prefixes.", check: .topicPrefixes())
        var topics: [String] = ["obs."]
        @Setting("mode", "How to go about it.")
        var mode: Mode = .careful
        @Setting("source", "Source id.", default: "the plugin id")
        var source: String? = nil
        @Setting("limit", "An upper bound.")
        var limit: Double? = nil
        init() {}
        func validate() throws {
            if let limit, limit < every { throw ConfigValueError(key: "limit", "limit must not be below every") }
        }
    }

    static func decode(_ json: String) throws -> Sample {
        try JSONDecoder().decode(Sample.self, from: Data(json.utf8))
    }

    @Test func keysComeFromTheDeclarations() {
        #expect(Sample.keys.map(\.name) == ["file", "every", "tries", "verbose", "topics", "mode", "source", "limit"])
        #expect(Sample.keys.map(\.type) == ["string", "number", "integer", "boolean", "list of strings", "fast or careful", "string", "number"])
        #expect(Sample.keys.map { $0.defaultValue ?? "required" } == ["required", "1000", "3", "false", "[\"obs.\"]", "careful", "the plugin id", "none"])
        #expect(Sample.keys.map(\.doc).first == "A file to read.")
    }

    @Test func defaultsApplyAndGivenValuesWin() throws {
        let c = try Self.decode(#"{"file": "a.jsonl", "every": 250, "mode": "fast", "topics": ["obs.fix."], "limit": 300}"#)
        #expect(c.file == "a.jsonl" && c.every == 250 && c.tries == 3 && c.verbose == false)
        #expect(c.mode == .fast && c.topics == ["obs.fix."] && c.source == nil && c.limit == 300)
    }

    @Test func refusalsNameTheKey() throws {
        func problem(_ json: String) -> String {
            do { _ = try Self.decode(json); return "accepted" } catch let e as ConfigValueError { return "\(e.key): \(e.message)" } catch { return "\(type(of: error))" }
        }
        #expect(problem(#"{"file": "a", "every": 0}"#) == "every: every must be above 0, found 0")
        #expect(problem(#"{"file": "a", "tries": 11}"#) == "tries: tries must be between 1 and 10, found 11")
        #expect(problem(#"{"file": "a", "topics": ["Obs"]}"#) == "topics: topics contains 'Obs', which is not a topic prefix: lower-case segments of a-z 0-9 _ - joined by dots")
        #expect(problem(#"{"file": "a", "mode": "reckless"}"#) == "mode: mode must be one of fast, careful; found 'reckless'")
        #expect(problem(#"{"file": "a", "limit": 5}"#) == "limit: limit must not be below every")
        #expect(problem(#"{"every": 5}"#) == "DecodingError")   // the required key
        #expect(problem(#"{"file": "a", "every": "far"}"#) == "DecodingError")
    }

    @Test func copiesAreIndependent() throws {
        let decoded = try Self.decode(#"{"file": "a"}"#)
        var copy = decoded
        copy.every = 5
        #expect(decoded.every == 1000 && copy.every == 5)
        let built = Sample.with { $0.file = "b"; $0.tries = 7 }
        #expect(built.file == "b" && built.tries == 7 && Sample.with { $0.file = "c" }.tries == 3)
    }
}
