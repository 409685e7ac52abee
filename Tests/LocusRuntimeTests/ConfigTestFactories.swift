import Foundation
import LocusCore

/// Stand-ins for the built-in plugins with exactly their keys, for unit tests of the config
/// layer that should not depend on the real plugins' behaviour.
enum ConfigTestPlugins {
    static var all: [PluginFactory] { [replay, exec, speedAlert, console, file] }

    struct Source: SourcePlugin {
        var produces: [String]
        var drivesClock: Bool
        func run(context: PluginContext) async throws {}
    }

    struct Service: ServicePlugin {
        var subscriptions: [String]
        var produces: [String]
        mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws {}
    }

    struct Sink: SinkPlugin {
        var subscriptions: [String]
        func run(messages: AsyncStream<BusMessage>, context: PluginContext) async throws {
            for await _ in messages {}
        }
    }

    struct ReplayConfig: PluginConfiguration {
        var file: String
        var topics: [String]
        static let keys: [ConfigKey] = [
            ConfigKey("file", "string", default: nil, "Recording to play."),
            ConfigKey("speed", "number or \"max\"", default: "1", "Playback speed."),
            ConfigKey("loop", "boolean", default: "false", "Start again at the end."),
            ConfigKey("topics", "list of strings", default: "[\"obs.\"]", "Topic prefixes to replay."),
            ConfigKey("tick_interval", "number", default: "1", "Seconds between ticks."),
            ConfigKey("start_delay", "number", default: "0", "Seconds before the first message."),
        ]
        enum CodingKeys: String, CodingKey { case file, speed, loop, topics, tick_interval, start_delay }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            file = try c.decode(String.self, forKey: .file)
            if (try? c.decode(String.self, forKey: .speed)) != "max",
               let speed = try c.decodeIfPresent(Double.self, forKey: .speed), speed <= 0 {
                throw ConfigValueError(key: "speed", "speed must be above 0")
            }
            _ = try c.decodeIfPresent(Bool.self, forKey: .loop)
            topics = try c.decodeIfPresent([String].self, forKey: .topics) ?? ["obs."]
            _ = try c.decodeIfPresent(Double.self, forKey: .tick_interval)
            _ = try c.decodeIfPresent(Double.self, forKey: .start_delay)
        }
    }

    static let replay = PluginFactory.source("replay", summary: "test replay", config: ReplayConfig.self) { config, setup in
        let path = setup.resolvePath(config.file)
        guard FileManager.default.fileExists(atPath: path) else {
            throw ConfigValueError(key: "file", "recording '\(config.file)' does not exist")
        }
        return Source(produces: config.topics + ["clock.tick"], drivesClock: true)
    }

    struct ConsoleConfig: PluginConfiguration {
        var topics: [String]
        static let keys: [ConfigKey] = [
            ConfigKey("topics", "list of strings", default: "[\"\"]", "Topic prefixes to print."),
            ConfigKey("format", "text | json", default: "text", "Output format."),
        ]
        enum CodingKeys: String, CodingKey { case topics, format }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            topics = try c.decodeIfPresent([String].self, forKey: .topics) ?? [""]
            let format = try c.decodeIfPresent(String.self, forKey: .format) ?? "text"
            guard format == "text" || format == "json" else {
                throw ConfigValueError(key: "format", "format must be text or json, found '\(format)'")
            }
        }
    }

    static let console = PluginFactory.sink("console", summary: "test console", config: ConsoleConfig.self) { config, _ in
        Sink(subscriptions: config.topics)
    }

    struct FileConfig: PluginConfiguration {
        var topics: [String]
        static let keys: [ConfigKey] = [
            ConfigKey("path", "string", default: nil, "File to append to."),
            ConfigKey("topics", "list of strings", default: "[\"\"]", "Topic prefixes to write."),
            ConfigKey("max_bytes", "integer", default: "10485760", "Rotate size."),
            ConfigKey("keep", "integer", default: "3", "Rotated files to keep."),
        ]
        enum CodingKeys: String, CodingKey { case path, topics, max_bytes, keep }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            _ = try c.decode(String.self, forKey: .path)
            topics = try c.decodeIfPresent([String].self, forKey: .topics) ?? [""]
            _ = try c.decodeIfPresent(Int.self, forKey: .max_bytes)
            _ = try c.decodeIfPresent(Int.self, forKey: .keep)
        }
    }

    static let file = PluginFactory.sink("file", summary: "test file sink", config: FileConfig.self) { config, _ in
        Sink(subscriptions: config.topics)
    }

    struct ExecConfig: PluginConfiguration {
        var command: [String]
        var env: [String: String]
        var produces: [String]
        var topics: [String]
        static let keys: [ConfigKey] = [
            ConfigKey("command", "list of strings", default: nil, "Program and arguments."),
            ConfigKey("env", "map of strings", default: "{}", "Extra environment."),
            ConfigKey("produces", "list of strings", default: "[]", "Topic prefixes it publishes."),
            ConfigKey("topics", "list of strings", default: "[]", "Topic prefixes it subscribes to."),
            ConfigKey("stop_timeout", "number", default: "1.5", "Seconds before SIGKILL."),
        ]
        enum CodingKeys: String, CodingKey { case command, env, produces, topics, stop_timeout }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            command = try c.decode([String].self, forKey: .command)
            env = try c.decodeIfPresent([String: String].self, forKey: .env) ?? [:]
            produces = try c.decodeIfPresent([String].self, forKey: .produces) ?? []
            topics = try c.decodeIfPresent([String].self, forKey: .topics) ?? []
            _ = try c.decodeIfPresent(Double.self, forKey: .stop_timeout)
        }
    }

    /// Records what it was built with, so tests can check the setup and the decoded config.
    final class ExecLog: @unchecked Sendable {
        /// Guards `_builds`.
        private let lock = NSLock()
        private var _builds: [(config: ExecConfig, setup: PluginSetup)] = []
        var builds: [(config: ExecConfig, setup: PluginSetup)] { lock.lock(); defer { lock.unlock() }; return _builds }
        func record(_ c: ExecConfig, _ s: PluginSetup) { lock.lock(); _builds.append((c, s)); lock.unlock() }
    }

    static let execLog = ExecLog()

    static let exec = PluginFactory(type: "exec", kinds: [.source, .service, .sink], summary: "test exec",
                                    keys: ExecConfig.keys) { decoder, setup in
        let config = try ExecConfig(from: decoder)
        execLog.record(config, setup)
        switch setup.kind {
        case .source: return .source(Source(produces: config.produces, drivesClock: false))
        case .service: return .service(Service(subscriptions: config.topics, produces: config.produces))
        case .sink: return .sink(Sink(subscriptions: config.topics))
        }
    }

    struct SpeedAlertConfig: PluginConfiguration {
        var sources: [String]
        static let keys: [ConfigKey] = [
            ConfigKey("limit", "number", default: "13.9", "Speed limit in m/s."),
            ConfigKey("hysteresis", "number", default: "1.0", "m/s below the limit."),
            ConfigKey("sources", "list of strings", default: "[]", "Fix sources to watch."),
        ]
        enum CodingKeys: String, CodingKey { case limit, hysteresis, sources }
        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            let limit = try c.decodeIfPresent(Double.self, forKey: .limit) ?? 13.9
            guard limit > 0 else { throw ConfigValueError(key: "limit", "limit must be above 0 m/s, found \(limit)") }
            _ = try c.decodeIfPresent(Double.self, forKey: .hysteresis)
            sources = try c.decodeIfPresent([String].self, forKey: .sources) ?? []
        }
    }

    static let speedAlert = PluginFactory.service("example-speed-alert", summary: "test speed alert",
                                                  config: SpeedAlertConfig.self) { config, setup in
        Service(subscriptions: config.sources.isEmpty ? ["obs.fix.", "clock.tick"] : config.sources.map { "obs.fix.\($0)" } + ["clock.tick"],
                produces: ["example.speed_alert.\(setup.id)"])
    }

    /// A factory whose build fails with an arbitrary error, for the "other errors" path.
    struct Broken: Error, CustomStringConvertible { var description: String { "device /dev/null0 is busy" } }
    struct EmptyConfig: PluginConfiguration {
        static let keys: [ConfigKey] = []
        init(from decoder: any Decoder) throws {}
    }
    static let broken = PluginFactory.source("broken", summary: "always fails", config: EmptyConfig.self) { _, _ in
        throw Broken()
    }
}
