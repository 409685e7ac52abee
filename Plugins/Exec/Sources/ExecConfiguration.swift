import LocusCore

/// Options of the `exec` plugin.
public struct ExecConfiguration: DeclaredConfiguration {
    @Setting("command", "Program and arguments, e.g. [python3, examples/python/source.py]; no shell. A relative program path resolves against the config file.",
             check: SettingCheck { ($0.first ?? "").isEmpty ? "needs at least the program to run" : nil })
    public var command: [String]

    @Setting("env", "Extra environment variables for the program (on top of Locus's own environment and the LOCUS_* endpoint variables).")
    public var env: [String: String] = [:]

    @Setting("produces", "Topic prefixes the program publishes, so subscriptions to them pass `locus check`.",
             check: .topicPrefixes(allowEmpty: false))
    public var produces: [String] = []

    @Setting("topics", "Topic prefixes the program subscribes to (documentation; it subscribes itself).")
    public var topics: [String] = []

    @Setting("stop_timeout", "Seconds between SIGTERM and SIGKILL to the program's process group, at shutdown and when the program exits leaving processes behind (0-60); shutdown waits for it.",
             check: .within(0...60, unit: "seconds"))
    public var stopTimeout: Double = 1.5

    @Setting("log_lines_per_second", "Lines of the program's output logged per second on average (bursts of twice that); the rest are counted and reported in a summary line every 10 s. 0 = no limit.",
             check: .within(0...1_000_000))
    public var logLinesPerSecond: Double = 100

    public init() {}
}
