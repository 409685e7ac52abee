import Foundation
import LocusBus
import LocusCore
import LocusPlugins
import Logging
import Testing
@testable import LocusRuntime

/// Fixture configs: `broken/NN-name.yaml` with the exact first error line(s) in
/// `broken/NN-name.expected`, and `valid/*.yaml` that must load.
enum ConfigFixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/configs")
    static let brokenDirectory = root.appendingPathComponent("broken")
    static let validDirectory = root.appendingPathComponent("valid")

    /// What the fixtures see of the environment (the real one is not used, so results do not
    /// depend on the machine).
    static let environment: [String: String] = [
        "LOCUS_RUNTIME_DIR": "/tmp/locus-config-tests",
        "LOCUS_TEST_SPEED": "4",
        "LOCUS_TEST_EMPTY": "",
        "LOCUS_TEST_SINK_FORMAT": "json",
        "LOCUS_TEST_PORT": "5599",
    ]

    static func yamlFiles(in directory: URL) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return names.filter { $0.hasSuffix(".yaml") }.sorted()
    }

    static var brokenCases: [String] { yamlFiles(in: brokenDirectory) }
    static var validCases: [String] { yamlFiles(in: validDirectory) }

    static func loader(_ factories: [PluginFactory] = BuiltinPlugins.all) -> ConfigLoader {
        ConfigLoader(factories: factories, environment: environment, logger: Logger(label: "locus.config-tests"))
    }

    static func mode(for name: String) -> ConfigLoader.Mode {
        name.contains("services-only") ? .servicesOnly : .full
    }
}

@Suite("Config corpus")
struct ConfigCorpusTests {
    @Test("a broken config reports the expected first error", arguments: ConfigFixtures.brokenCases)
    func brokenConfig(_ name: String) throws {
        let url = ConfigFixtures.brokenDirectory.appendingPathComponent(name)
        let text = try String(contentsOf: url, encoding: .utf8)
        let expectedURL = url.deletingPathExtension().appendingPathExtension("expected")
        let expected = try String(contentsOf: expectedURL, encoding: .utf8)
            .split(separator: "\n").map(String.init).filter { !$0.isEmpty }
        try #require(!expected.isEmpty, "\(expectedURL.lastPathComponent) is empty")

        // Loaded by base name (so messages start with `NN-name.yaml:`), relative paths resolving
        // against the fixture directory.
        let thrown = #expect(throws: ConfigErrors.self) {
            try ConfigFixtures.loader().load(text: text, file: name, directory: ConfigFixtures.brokenDirectory.path,
                                             mode: ConfigFixtures.mode(for: name))
        }
        guard let errors = thrown?.errors else { return }
        let actual = errors.map(\.description)
        #expect(Array(actual.prefix(expected.count)) == expected)
        for e in errors {
            #expect(e.file == name)
            #expect(e.line >= 1 && e.column >= 1, "every corpus error has a position: \(e)")
        }
    }

    @Test("the corpus covers enough cases and every case has its expectation")
    func corpusIsComplete() throws {
        let cases = ConfigFixtures.brokenCases
        #expect(cases.count >= 24)
        let all = try FileManager.default.contentsOfDirectory(atPath: ConfigFixtures.brokenDirectory.path)
        for name in cases {
            let stem = String(name.dropLast(".yaml".count))
            #expect(all.contains(stem + ".expected"), "\(name) has no .expected file")
            #expect(name.range(of: #"^\d\d-[a-z0-9-]+\.yaml$"#, options: .regularExpression) != nil, "\(name) is not named NN-name.yaml")
        }
        for name in all where name.hasSuffix(".expected") {
            let stem = String(name.dropLast(".expected".count))
            #expect(cases.contains(stem + ".yaml"), "\(name) has no .yaml file")
        }
    }

    @Test("a valid config loads", arguments: ConfigFixtures.validCases)
    func validConfig(_ name: String) throws {
        let path = ConfigFixtures.validDirectory.appendingPathComponent(name).path
        do {
            _ = try ConfigFixtures.loader().load(path: path, mode: ConfigFixtures.mode(for: name))
        } catch let errors as ConfigErrors {
            Issue.record("\(name) did not load:\n\(errors)")
        }
    }

    /// Reads a stored property of a built plugin without importing its module.
    func field(_ instance: PluginInstance, _ path: String...) -> Any? {
        var current: Any
        switch instance {
        case .source(let p): current = p
        case .service(let p): current = p
        case .sink(let p): current = p
        }
        for name in path {
            if let child = Mirror(reflecting: current).descendant(name) {
                current = child
            } else if let boxed = Mirror(reflecting: current).descendant("_" + name, "box", "value") {
                // An @Setting property: its value is in the wrapper's box, as an Optional.
                guard let value = Mirror(reflecting: boxed).children.first?.value else { return nil }
                current = value
            } else {
                return nil
            }
        }
        return current
    }

    @Test("the full example config loads with the built-in plugins")
    func fullConfig() throws {
        let path = ConfigFixtures.validDirectory.appendingPathComponent("03-full.yaml").path
        let c = try ConfigFixtures.loader().load(path: path)
        #expect(c.hub.ingest == ["ipc:///tmp/locus-config-tests/ingest.sock"])
        #expect(c.hub.publish == ["ipc:///tmp/locus-config-tests/publish.sock", "tcp://*:5599"])
        #expect(c.hub.runtime.externalTopics == ["region."])
        #expect(c.hub.limits.subscriptions == SubscriptionLimits(perClient: 500, total: 5000, perClientBytes: 32768, totalBytes: 524_288))
        #expect(c.logLevel == .debug)
        #expect(c.plugins.map(\.id) == ["gps0", "speeding", "console", "archive"])
        #expect(c.disabled == ["old-walk"])
        #expect(c.sourceDrivesClock)
        let replay = try #require(c.plugins.first)
        #expect(replay.setup.configDirectory == ConfigFixtures.validDirectory.path)
        #expect(field(replay.instance, "configuration", "speed").map { "\($0)" } == "factor(4.0)")
        #expect(field(c.plugins[2].instance, "configuration", "format").map { "\($0)" } == "json")
    }

    /// The hub's keys are declared once (HubBlock); docs/protocol.md's hub table documents each.
    @Test("every hub key is in the protocol doc's hub table")
    func hubKeysAreDocumented() throws {
        let doc = try String(contentsOfFile: ConfigFixtures.validDirectory.path + "/../../../../../docs/protocol.md", encoding: .utf8)
        let table = doc.components(separatedBy: "| key | default | meaning |").dropFirst().first ?? ""
        let rows = table.components(separatedBy: "\n\n").first ?? ""
        #expect(HubBlock.keys.count == 26)
        for key in HubBlock.keys {
            #expect(rows.contains("`\(key.name)`"), "docs/protocol.md's hub table has no row for \(key.name)")
        }
    }

    @Test("defaults and $$ in a valid config")
    func environmentDefaults() throws {
        let path = ConfigFixtures.validDirectory.appendingPathComponent("04-env-defaults.yaml").path
        let c = try ConfigFixtures.loader().load(path: path)
        #expect(field(c.plugins[0].instance, "path") as? String == ConfigFixtures.validDirectory.path + "/../walk.jsonl")
        #expect(field(c.plugins[0].instance, "configuration", "speed").map { "\($0)" } == "max")
        #expect(field(c.plugins[1].instance, "path") as? String == "/tmp/locus-config-tests-$HOME.jsonl")
    }
}
