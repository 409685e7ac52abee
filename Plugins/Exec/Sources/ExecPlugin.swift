import Foundation
import LocusCore
import Logging

/// Runs an outside program as a plugin. The program talks to the hub itself over ZeroMQ, using
/// the endpoints passed in its environment:
///
/// - `LOCUS_INGEST_ENDPOINT`: connect a PUB (or XPUB) socket here to publish;
/// - `LOCUS_PUBLISH_ENDPOINT`: connect a SUB socket here to subscribe;
/// - `LOCUS_CONTROL_ENDPOINT`: the control socket (REQ);
/// - `LOCUS_PLUGIN_ID`: the id to use as `producer` and in topics.
///
/// Its standard error goes to Locus's log line by line, standard output at debug, both limited to
/// `log_lines_per_second` (the rest counted and summarised). It runs in a process group of its
/// own with a clean signal state. When it exits, whatever it left in its group is stopped too and
/// the runtime restarts it with backoff (exit status 0 counts as finished and is not restarted).
/// At shutdown its group gets SIGTERM, then SIGKILL after `stop_timeout`.
public struct ExecProcess: SourcePlugin {
    public let configuration: ExecConfiguration
    public let executable: String
    public let endpoints: HubEndpoints
    public let id: String

    public var produces: [String] { configuration.produces }

    /// A program that ended with a status other than 0, or by a signal.
    public struct ExitError: StartupFailure {
        public var program: String
        public var status: Int32
        public var signalled: Bool
        /// The last line the program wrote to standard error, if any (a traceback's last line
        /// says what went wrong: `ModuleNotFoundError: No module named 'zmq'`).
        public var lastError: String?
        /// It ran less than `ExecProcess.startupSeconds`.
        public var endedAtStart: Bool
        public var description: String {
            let how = signalled ? "\(program) was killed by signal \(status)" : "\(program) exited with status \(status)"
            guard let lastError else { return how }
            return "\(how): \(lastError)"
        }
    }

    /// A program that ends within this many seconds of its start has "exited at once": three
    /// such exits in a row with the same status and last error line stop its restarts.
    public static let startupSeconds = 2.0

    /// Where the program runs: the config file's directory (exec contract 2), so the relative
    /// paths among its arguments (`examples/python/source.py`) mean what they do in the config.
    public var directory: String?

    /// Shutdown may take this long for this plugin: SIGTERM, `stop_timeout`, SIGKILL, reaping.
    public var stopTimeout: Double { configuration.stopTimeout + 2.5 }

    public func run(context: PluginContext) async throws {
        var environment = ProcessInfo.processInfo.environment
        environment["LOCUS_INGEST_ENDPOINT"] = endpoints.ingest
        environment["LOCUS_PUBLISH_ENDPOINT"] = endpoints.publish
        environment["LOCUS_CONTROL_ENDPOINT"] = endpoints.control
        environment["LOCUS_PLUGIN_ID"] = id
        environment["PYTHONUNBUFFERED"] = environment["PYTHONUNBUFFERED"] ?? "1"
        environment.merge(configuration.env) { _, new in new }
        let logger = context.logger
        let started = ContinuousClock.now
        let group: SpawnedProcessGroup
        do {
            group = try SpawnedProcessGroup(executable: executable, arguments: Array(configuration.command.dropFirst()),
                                            environment: environment, directory: directory)
        } catch var error as SpawnedProcessGroup.SpawnError {
            error.directory = directory
            throw error
        }
        logger.info("started", metadata: ["pid": "\(group.pid)", "program": "\(executable)"])
        let supervision = ProcessGroupSupervision(group: group, stopTimeout: configuration.stopTimeout,
                                                  logLinesPerSecond: configuration.logLinesPerSecond, logger: logger)
        supervision.start()
        var status: Int32 = 0
        // Returns only once the process group is gone: cancellation asks it to stop (SIGTERM,
        // then SIGKILL after stop_timeout) and waits for that, so no child outlives shutdown.
        await withTaskCancellationHandler {
            status = await supervision.finished()
        } onCancel: {
            supervision.requestStop()
        }
        if Task.isCancelled { return }
        let atStart = started.duration(to: .now) < .milliseconds(Int64(Self.startupSeconds * 1000))
        let signal = status & 0x7F
        if signal == 0 {
            let code = (status >> 8) & 0xFF
            if code == 0 {
                logger.info("exited with status 0")
                return
            }
            throw ExitError(program: configuration.command[0], status: code, signalled: false,
                            lastError: supervision.lastErrorLine, endedAtStart: atStart)
        }
        throw ExitError(program: configuration.command[0], status: signal, signalled: true,
                        lastError: supervision.lastErrorLine, endedAtStart: atStart)
    }
}

public enum ExecPlugin {
    public static let factory = PluginFactory(
        type: "exec", kinds: [.source, .service, .sink],
        summary: "Runs an outside program (any language) that talks to the hub over ZeroMQ; supervised and restarted with backoff.",
        keys: ExecConfiguration.keys
    ) { decoder, setup in
        let config = try ExecConfiguration(from: decoder)
        let program = config.command[0]
        let executable: String
        if program.contains("/") {
            executable = setup.resolvePath(program)
        } else if let found = ExecPlugin.searchPath(program) {
            executable = found
        } else {
            throw ConfigValueError(key: "command", "program '\(program)' not found in PATH")
        }
        guard FileManager.default.isExecutableFile(atPath: executable) else {
            throw ConfigValueError(key: "command", "'\(executable)' is not an executable file")
        }
        return .source(ExecProcess(configuration: config, executable: executable, endpoints: setup.endpoints, id: setup.id,
                                   directory: setup.configDirectory.isEmpty ? nil : setup.configDirectory))
    }

    static func searchPath(_ program: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
        for dir in path.split(separator: ":") {
            let candidate = "\(dir)/\(program)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }
}
