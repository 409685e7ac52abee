import LocusCore

/// Options of the `exec` plugin.
public struct ExecConfiguration: PluginConfiguration {
    public var command: [String]
    public var env: [String: String]
    public var produces: [String]
    public var topics: [String]
    public var stopTimeout: Double
    public var logLinesPerSecond: Double

    public static let keys: [ConfigKey] = [
        ConfigKey("command", "list of strings", default: nil, "Program and arguments, e.g. [python3, examples/python/source.py]; no shell. A relative program path resolves against the config file."),
        ConfigKey("env", "map of strings", default: "{}", "Extra environment variables for the program (on top of Locus's own environment and the LOCUS_* endpoint variables)."),
        ConfigKey("produces", "list of strings", default: "[]", "Topic prefixes the program publishes, so subscriptions to them pass `locus check`."),
        ConfigKey("topics", "list of strings", default: "[]", "Topic prefixes the program subscribes to (documentation; it subscribes itself)."),
        ConfigKey("stop_timeout", "number", default: "1.5", "Seconds between SIGTERM and SIGKILL to the program's process group, at shutdown and when the program exits leaving processes behind (0-60); shutdown waits for it."),
        ConfigKey("log_lines_per_second", "number", default: "100", "Lines of the program's output logged per second on average (bursts of twice that); the rest are counted and reported in a summary line every 10 s. 0 = no limit."),
    ]

    enum CodingKeys: String, CodingKey { case command, env, produces, topics, stop_timeout, log_lines_per_second }

    public init(command: [String], env: [String: String] = [:], produces: [String] = [], topics: [String] = [], stopTimeout: Double = 1.5,
                logLinesPerSecond: Double = 100) {
        self.command = command
        self.env = env
        self.produces = produces
        self.topics = topics
        self.stopTimeout = stopTimeout
        self.logLinesPerSecond = logLinesPerSecond
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        command = try c.decode([String].self, forKey: .command)
        guard let first = command.first, !first.isEmpty else {
            throw ConfigValueError(key: "command", "command needs at least the program to run")
        }
        env = try c.decodeIfPresent([String: String].self, forKey: .env) ?? [:]
        produces = try c.decodeIfPresent([String].self, forKey: .produces) ?? []
        for t in produces where !Topic.isValidPrefix(t) || t.isEmpty {
            throw ConfigValueError(key: "produces", "'\(t)' is not a topic prefix: lower-case segments of a-z 0-9 _ - joined by dots")
        }
        topics = try c.decodeIfPresent([String].self, forKey: .topics) ?? []
        stopTimeout = try c.decodeIfPresent(Double.self, forKey: .stop_timeout) ?? 1.5
        guard stopTimeout >= 0, stopTimeout <= 60 else {
            throw ConfigValueError(key: "stop_timeout", "stop_timeout must be between 0 and 60 seconds, found \(stopTimeout)")
        }
        logLinesPerSecond = try c.decodeIfPresent(Double.self, forKey: .log_lines_per_second) ?? 100
        guard logLinesPerSecond >= 0, logLinesPerSecond <= 1_000_000 else {
            throw ConfigValueError(key: "log_lines_per_second", "log_lines_per_second must be between 0 (no limit) and 1000000, found \(logLinesPerSecond)")
        }
    }
}
