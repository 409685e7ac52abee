import Foundation
import LocusCore
import LocusPlugins
import Logging
import Testing
@testable import LocusRuntime

/// The loader against the test stand-ins (`ConfigTestPlugins`), so these tests pin down the
/// config layer's own behaviour.
@Suite("Config loader")
struct ConfigLoaderTests {
    static let env = ["LOCUS_RUNTIME_DIR": "/tmp/locus-t", "LIMIT": "2.5", "WORD": "fast", "TOPIC": "region.enter."]

    func loader(_ factories: [PluginFactory] = ConfigTestPlugins.all, env: [String: String] = Self.env) -> ConfigLoader {
        ConfigLoader(factories: factories, environment: env, logger: Logger(label: "test"))
    }

    func load(_ yaml: String, mode: ConfigLoader.Mode = .full, factories: [PluginFactory] = ConfigTestPlugins.all,
              env: [String: String] = Self.env) throws -> LocusConfiguration {
        try loader(factories, env: env).load(text: yaml, file: "t.yaml", directory: "/cfg", mode: mode)
    }

    /// The errors `yaml` produces, as `line:column: message`.
    func errors(_ yaml: String, mode: ConfigLoader.Mode = .full, factories: [PluginFactory] = ConfigTestPlugins.all,
                env: [String: String] = Self.env) -> [String] {
        do {
            _ = try load(yaml, mode: mode, factories: factories, env: env)
            return []
        } catch let e as ConfigErrors {
            return e.errors.map { "\($0.line):\($0.column): \($0.message)" }
        } catch {
            return ["unexpected \(error)"]
        }
    }

    @Test func emptyConfigsGiveDefaults() throws {
        for text in ["", "{}", "# nothing\n", "---\n"] {
            let c = try load(text)
            #expect(c.plugins.isEmpty)
            #expect(c.logLevel == .info)
            #expect(c.hub.ingest == ["ipc:///tmp/locus-t/ingest.sock"])
            #expect(c.hub.publish == ["ipc:///tmp/locus-t/publish.sock"])
            #expect(c.hub.control == "ipc:///tmp/locus-t/control.sock")
            #expect(c.hub.limits.maxMessageBytes == 262_144)
            #expect(c.hub.limits.highWaterMark == 100_000)
            #expect(c.hub.runtime.tickInterval == 1.0)
            #expect(c.endpoints == RuntimePaths.defaultEndpoints(environment: Self.env))
            #expect(c.file == "t.yaml")
        }
    }

    @Test func hubSettings() throws {
        let c = try load("""
            hub:
              ingest: "ipc://${LOCUS_RUNTIME_DIR}/in.sock"
              publish: [ {endpoint: "tcp://*:5556", insecure: true}, "ipc:///run/p.sock" ]
              control: "tcp://127.0.0.1:5557"
              max_message_bytes: 1_048_576
              high_water_mark: 0
              tick_interval: 0.25
              external_topics: [ "region.", "obs.fix.phone" ]
            log:
              level: debug
            """)
        #expect(c.hub.ingest == ["ipc:///tmp/locus-t/in.sock"])
        #expect(c.hub.publish == ["tcp://*:5556", "ipc:///run/p.sock"])
        #expect(c.hub.limits.maxMessageBytes == 1_048_576)
        #expect(c.hub.limits.highWaterMark == 0)
        #expect(c.hub.runtime.tickInterval == 0.25)
        #expect(c.hub.runtime.externalTopics == ["region.", "obs.fix.phone"])
        #expect(c.logLevel == .debug)
        #expect(c.endpoints == HubEndpoints(ingest: "ipc:///tmp/locus-t/in.sock", publish: "tcp://127.0.0.1:5556",
                                            control: "tcp://127.0.0.1:5557", catchup: "ipc:///tmp/locus-t/catchup.sock"))
    }

    @Test func runtimeDirVariableAlwaysResolves() throws {
        let c = try load("hub:\n  control: \"ipc://${LOCUS_RUNTIME_DIR}/c.sock\"\n", env: ["XDG_RUNTIME_DIR": "/run/user/5"])
        #expect(c.hub.control == "ipc:///run/user/5/locus/c.sock")
    }

    @Test func hubErrors() {
        #expect(errors("""
            hub:
              max_message_bytes: 64
              high_water_mark: -1
              tick_interval: .nan
              publish: []
              external_topics: obs.
              control: [ a ]
            """) == [
            "2:22: invalid value for 'max_message_bytes' in hub: max_message_bytes must be between 1024 (1 KiB) and 67108864 (64 MiB), found 64",
            "3:20: invalid value for 'high_water_mark' in hub: high_water_mark must be 0 (unlimited) or more, found -1",
            "4:18: invalid value for 'tick_interval' in hub: tick_interval must be between 0.01 and 3600 seconds, found nan",
            "5:12: invalid value for 'publish' in hub: publish needs at least one endpoint, such as ipc:///run/locus/publish.sock or tcp://127.0.0.1:5556",
            "6:20: expected a list for 'external_topics' in hub, found 'obs.' (external_topics: list of strings)",
            "7:12: expected a string for 'control' in hub, found a list (control: endpoint)",
        ])
    }

    @Test func pluginsComeInSectionOrderAndDisabledAreLeftOut() throws {
        let c = try load("""
            sinks:
              - type: console
                id: out
            services:
              - type: example-speed-alert
                id: speeding
              - type: exec
                id: helper
                enabled: no
                command: [ "/nonexistent" ]
            sources:
              - type: exec
                id: phone
                command: [ "/bin/true" ]
                produces: [ "obs.fix.phone" ]
              - type: replay
                id: old
                enabled: false
                file: /nonexistent/recording.jsonl
            """)
        #expect(c.plugins.map(\.id) == ["phone", "speeding", "out"])
        #expect(c.plugins.map(\.kind) == [.source, .service, .sink])
        #expect(c.plugins.map(\.type) == ["exec", "example-speed-alert", "console"])
        #expect(c.disabled == ["helper", "old"])
        #expect(c.plugins(of: .service).map(\.id) == ["speeding"])
        let phone = c.plugins[0]
        #expect(phone.line == 12 && phone.column == 5)
    }

    @Test func disabledEntriesAreStillChecked() {
        #expect(errors("""
            sources:
              - type: replay
                id: old
                enabled: false
                fiel: x.jsonl
                file: ${NOT_SET_BUT_DISABLED}
            """) == [
            "5:5: unknown key 'fiel' in replay source 'old'; expected one of: file, speed, loop, topics, tick_interval, start_delay (did you mean 'file'?)",
        ])
    }

    @Test func setupIsFilledIn() throws {
        let c = try load("""
            hub:
              publish: [ "inproc://x", {endpoint: "tcp://*:6000", insecure: true} ]
              external_topics: [ "obs." ]
            log:
              level: notice
            services:
              - type: example-speed-alert
                id: speeding
            """)
        let setup = try #require(c.plugins.first?.setup)
        #expect(setup.id == "speeding")
        #expect(setup.kind == .service)
        #expect(setup.configDirectory == "/cfg")
        #expect(setup.endpoints == c.endpoints)
        #expect(setup.endpoints.publish == "tcp://127.0.0.1:6000")
        #expect(setup.logger.label == "locus.speeding")
        #expect(setup.logger.logLevel == .notice)
        #expect(setup.resolvePath("data/x.jsonl") == "/cfg/data/x.jsonl")
    }

    @Test func loadPathUsesFileDirectory() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("locus-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        try "x\n".write(to: dir.appendingPathComponent("rec.jsonl"), atomically: true, encoding: .utf8)
        let path = dir.appendingPathComponent("config.yaml").path
        try "sources:\n  - type: replay\n    id: gps0\n    file: rec.jsonl\n".write(toFile: path, atomically: true, encoding: .utf8)
        let c = try loader().load(path: path)
        #expect(c.file == path)
        #expect(c.plugins.first?.setup.configDirectory == dir.path)
        #expect(c.sourceDrivesClock)

        // The same file with a missing recording reports the plugin's error at the value.
        try "sources:\n  - type: replay\n    id: gps0\n    file: gone.jsonl\n".write(toFile: path, atomically: true, encoding: .utf8)
        let thrown = #expect(throws: ConfigErrors.self) { try loader().load(path: path) }
        #expect(thrown?.errors.map(\.description) == [
            "\(path):4:11: error: invalid value for 'file' in replay source 'gps0': recording 'gone.jsonl' does not exist",
        ])
    }

    @Test func unreadableFiles() throws {
        let missing = "/nonexistent/locus/config.yaml"
        let e1 = #expect(throws: ConfigErrors.self) { try loader().load(path: missing) }
        #expect(e1?.errors == [ConfigError(file: missing, line: 0, column: 0,
                                           message: "cannot read config file '\(missing)': No such file or directory")])
        #expect(e1?.description == "\(missing): error: cannot read config file '\(missing)': No such file or directory")
        let dir = FileManager.default.temporaryDirectory.path
        let e2 = #expect(throws: ConfigErrors.self) { try loader().load(path: dir) }
        #expect(e2?.errors.first?.message == "cannot read config file '\(dir)': Is a directory")
    }

    @Test func environmentValuesAreDecodedAfterSubstitution() throws {
        let c = try load("""
            services:
              - type: exec
                id: helper
                command: [ "/bin/true", "${WORD}", "$$HOME" ]
                topics: [ "${TOPIC}" ]
                produces: [ "${MISSING:-derived.}" ]
            hub:
              external_topics: [ "region." ]
            """)
        guard case .service(let s) = c.plugins.first?.instance else {
            Issue.record("expected a service")
            return
        }
        #expect(s.subscriptions == ["region.enter."])
        #expect(s.produces == ["derived."])
    }

    @Test func substitutedValuesAreTypeChecked() {
        // LIMIT=2.5 is a number; WORD=fast is not, and the error points at the original scalar.
        #expect(errors("services:\n  - type: example-speed-alert\n    id: a\n    limit: ${LIMIT}\n    sources: []\nhub:\n  external_topics: [obs.]\n").isEmpty)
        #expect(errors("services:\n  - type: example-speed-alert\n    id: a\n    limit: ${WORD}\n") == [
            "4:12: expected a number for 'limit' in example-speed-alert service 'a', found 'fast'",
        ])
        #expect(errors("services:\n  - type: example-speed-alert\n    id: a\n    limit: ${NOPE}\n") == [
            "4:12: environment variable 'NOPE' is not set; set it, or give a default with ${NOPE:-value} (in 'limit')",
        ])
    }

    @Test func decodingErrorsPointIntoNestedValues() {
        #expect(errors("""
            sinks:
              - type: exec
                id: x
                command: [ "/bin/true" ]
                env:
                  A: [ 1 ]
            """) == ["6:10: expected a single value for 'env.A' in exec sink 'x', found a list"])
        #expect(errors("""
            sinks:
              - type: exec
                id: x
                command: [ "/bin/true", [ nested ] ]
            """) == ["4:29: expected a single value for 'command[1]' in exec sink 'x', found a list"])
        #expect(errors("""
            sources:
              - type: replay
                id: gps0
                file: x
                loop: sometimes
            """) == ["5:11: expected a boolean (true or false) for 'loop' in replay source 'gps0', found 'sometimes'"])
    }

    @Test func pluginValueErrorsPointAtTheKey() {
        #expect(errors("services:\n  - type: example-speed-alert\n    id: a\n    limit: -3\n") == [
            "4:12: invalid value for 'limit' in example-speed-alert service 'a': limit must be above 0 m/s, found -3.0",
        ])
        // A key left at its default is reported at the entry.
        #expect(errors("sources:\n  - type: replay\n    id: gps0\n    file: missing.jsonl\n") == [
            "4:11: invalid value for 'file' in replay source 'gps0': recording 'missing.jsonl' does not exist",
        ])
    }

    @Test func otherBuildErrorsAreReportedAtTheEntry() {
        #expect(errors("sources:\n  - type: broken\n    id: b\n", factories: ConfigTestPlugins.all + [ConfigTestPlugins.broken]) == [
            "2:5: cannot set up broken source 'b': device /dev/null0 is busy",
        ])
        #expect(errors("sources:\n  - type: broken\n    id: b\n    x: 1\n", factories: [ConfigTestPlugins.broken]) == [
            "4:5: unknown key 'x' in broken source 'b'; broken takes no settings besides type, id and enabled",
        ])
    }

    @Test func requiredKeys() {
        #expect(errors("sinks:\n  - type: file\n    id: f\n    path:\n") == [
            "4:5: missing value for required key 'path' in file sink 'f' (path: string — File to append to.)",
        ])
        #expect(errors("sinks:\n  - type: file\n    id: f\n    keep: 2\n") == [
            "2:5: missing required key 'path' in file sink 'f' (path: string — File to append to.)",
        ])
    }

    @Test func allErrorsAreCollectedInFileOrder() {
        let e = errors("""
            sinks:
              - type: console
                id: out
                topics: [ "nowhere." ]
              - type: consol
                id: out2
            sources:
              - type: replay
                id: out
                file: x
              - id: nameless
            hub:
              control: "tcp://host"
            """)
        #expect(e == [
            "5:11: unknown plugin type 'consol' in 'sinks'; available sink types: exec, console, file (did you mean 'console'?)",
            "9:9: duplicate id 'out'; the console sink 'out' at line 2 already uses it (ids must be unique across sources, services and sinks)",
            "11:5: missing 'type' in source entry; expected one of the source types: replay, exec",
            "13:12: invalid value for 'control' in hub: 'tcp://host': a tcp endpoint needs host:port; expected tcp://host:port, host '*', an IP address ([IPv6] in brackets) or a name, port 1 to 65535",
        ])
    }

    @Test func subscriptionsMustMatchSomethingProduced() {
        // Produced: runtime topics, sources, services, hub.external_topics.
        #expect(errors("""
            sources:
              - type: exec
                id: phone
                command: [ "/bin/true" ]
                produces: [ "obs.fix.phone" ]
            services:
              - type: example-speed-alert
                id: speeding
                sources: [ phone ]
            sinks:
              - type: console
                id: c
                topics: [ "", "status.", "clock.tick", "obs.", "obs.fix.phone.extra", "example.speed_alert.", "region.x" ]
            hub:
              external_topics: [ "region." ]
            """).isEmpty)
        // A subscription derived from a value (sources: [gps9] → obs.fix.gps9) points at that value.
        #expect(errors("""
            services:
              - type: example-speed-alert
                id: speeding
                sources: [ gps9 ]
            """) == [
            "4:16: subscription 'obs.fix.gps9' of example-speed-alert service 'speeding' matches nothing that is produced; produced topics: status., clock.tick, example.speed_alert.speeding; if an outside publisher sends it, list it in hub.external_topics",
        ])
        // Not from config at all: reported at the entry.
        #expect(errors("services:\n  - type: example-speed-alert\n    id: speeding\n").first?.hasPrefix("2:5: subscription 'obs.fix.' of example-speed-alert service 'speeding' matches nothing") == true)
        // Disabled plugins produce nothing.
        #expect(errors("""
            sources:
              - type: exec
                id: phone
                enabled: false
                command: [ "/bin/true" ]
                produces: [ "obs.fix.phone" ]
            sinks:
              - type: console
                id: c
                topics: [ obs.fix.phone ]
            """).count == 1)
    }

    @Test func subscriptionsAreNotMatchedWhenAPluginFailedToBuild() {
        // The broken source's produces are unknown, so only its own error is reported.
        #expect(errors("""
            sources:
              - type: replay
                id: gps0
                file: missing.jsonl
            sinks:
              - type: console
                id: c
                topics: [ "obs." ]
            """).count == 1)
        // A sink that cannot be built produces nothing anyway, so the others are still checked.
        #expect(errors("""
            sinks:
              - type: file
                id: f
              - type: console
                id: c
                topics: [ "obs." ]
            """).count == 2)
    }

    /// `locus replay` reads only the services (hub, sources and sinks are skipped), but checks them.
    @Test func servicesOnlyMode() {
        #expect(errors("""
            log:
              level: error
            services:
              - type: example-speed-alert
                id: speeding
            """, mode: .servicesOnly).isEmpty)
        #expect(errors("""
            hub:
              control: "tcp://127.0.0.1:5557"
            services:
              - type: exec
                id: x
                command: [ /bin/true ]
                topics: [ "region." ]
            sinks:
              - type: console
                id: c
            """, mode: .servicesOnly) == [
            "7:15: subscription 'region.' of exec service 'x' matches nothing that is produced; produced topics: obs., clock.tick, status. (a replay provides obs. and clock.tick)",
        ])
    }

    @Test func rebuildMakesFreshInstances() throws {
        let c = try load("services:\n  - type: exec\n    id: x\n    command: [ /bin/true ]\n    topics: [ \"clock.tick\" ]\n")
        let p = try #require(c.plugins.first)
        guard case .service(let s) = try p.rebuild() else {
            Issue.record("expected a service")
            return
        }
        #expect(s.subscriptions == ["clock.tick"])
    }

    @Test func mergeKeysAreExpanded() throws {
        let c = try load("""
            sinks:
              - &base
                type: console
                id: a
                format: json
              - <<: *base
                id: b
            """)
        #expect(c.plugins.map(\.id) == ["a", "b"])
    }

    @Test func keysMustBePlainNames() {
        #expect(errors("? [a, b]\n: 1\n") == ["1:3: keys in the top level must be plain names, found a list"])
        // Keys are never substituted.
        #expect(errors("${HOME}: 1\n").first?.hasPrefix("1:1: unknown top-level key '${HOME}'") == true)
    }

    @Test func pluginThatBuildsTheWrongKindIsRejected() {
        let sloppy = PluginFactory(type: "sloppy", kinds: [.source, .sink], summary: "", keys: []) { _, _ in
            .sink(ConfigTestPlugins.Sink(subscriptions: ["clock.tick"]))
        }
        #expect(errors("sources:\n  - type: sloppy\n    id: s\n", factories: [sloppy]) == [
            "2:5: plugin type 'sloppy' built a sink for the source entry 's' (a bug in the plugin: it should build what PluginSetup.kind asks for)",
        ])
    }

    @Test func aTaskOfItsOwnMayServeAnySectionItsFactoryLists() {
        // `exec` builds a source (an outside process) whatever section it is in.
        let task = PluginFactory(type: "task", kinds: [.source, .sink], summary: "", keys: []) { _, _ in
            .source(ConfigTestPlugins.Source(produces: [], drivesClock: false))
        }
        #expect(errors("sinks:\n  - type: task\n    id: s\n", factories: [task]) == [])
        // …but not a section its factory does not list.
        #expect(!errors("services:\n  - type: task\n    id: s\n", factories: [task]).isEmpty)
    }
}
