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
/// Its standard error goes to Locus's log line by line; standard output is logged at debug.
/// If it exits, the runtime restarts it with backoff (exit status 0 counts as finished and is
/// not restarted). At shutdown it gets SIGTERM, then SIGKILL after `stop_timeout`.
public struct ExecProcess: SourcePlugin {
    public let configuration: ExecConfiguration
    public let executable: String
    public let endpoints: HubEndpoints
    public let id: String

    public var produces: [String] { configuration.produces }

    public struct ExitError: Error, CustomStringConvertible {
        public var program: String
        public var status: Int32
        public var signalled: Bool
        public var description: String {
            signalled ? "\(program) was killed by signal \(status)" : "\(program) exited with status \(status)"
        }
    }

    public func run(context: PluginContext) async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = Array(configuration.command.dropFirst())
        var environment = ProcessInfo.processInfo.environment
        environment["LOCUS_INGEST_ENDPOINT"] = endpoints.ingest
        environment["LOCUS_PUBLISH_ENDPOINT"] = endpoints.publish
        environment["LOCUS_CONTROL_ENDPOINT"] = endpoints.control
        environment["LOCUS_PLUGIN_ID"] = id
        environment["PYTHONUNBUFFERED"] = environment["PYTHONUNBUFFERED"] ?? "1"
        environment.merge(configuration.env) { _, new in new }
        process.environment = environment
        let stderrPipe = Pipe()
        let stdoutPipe = Pipe()
        process.standardError = stderrPipe
        process.standardOutput = stdoutPipe
        process.standardInput = FileHandle.nullDevice
        let logger = context.logger
        let stderrLines = LineSplitter { line in logger.info("\(line)", metadata: ["stream": "stderr"]) }
        let stdoutLines = LineSplitter { line in logger.debug("\(line)", metadata: ["stream": "stdout"]) }
        stderrPipe.fileHandleForReading.readabilityHandler = { h in stderrLines.feed(h.availableData) }
        stdoutPipe.fileHandleForReading.readabilityHandler = { h in stdoutLines.feed(h.availableData) }

        let exited = AsyncStream<Void>.makeStream()
        process.terminationHandler = { _ in exited.continuation.yield(); exited.continuation.finish() }
        try process.run()
        logger.info("started", metadata: ["pid": "\(process.processIdentifier)", "program": "\(executable)"])
        let stopTimeout = configuration.stopTimeout
        await withTaskCancellationHandler {
            for await _ in exited.stream {}
        } onCancel: {
            let pid = process.processIdentifier
            kill(pid, SIGTERM)
            DispatchQueue.global().asyncAfter(deadline: .now() + stopTimeout) {
                if process.isRunning { kill(pid, SIGKILL) }
            }
        }
        process.waitUntilExit()
        stderrPipe.fileHandleForReading.readabilityHandler = nil
        stdoutPipe.fileHandleForReading.readabilityHandler = nil
        stderrLines.flush()
        stdoutLines.flush()
        if Task.isCancelled { return }
        let status = process.terminationStatus
        let signalled = process.terminationReason == .uncaughtSignal
        if status == 0 && !signalled {
            logger.info("exited with status 0")
            return
        }
        throw ExitError(program: configuration.command[0], status: status, signalled: signalled)
    }
}

/// Splits a byte stream into lines for logging; keeps at most 8 KiB of an unfinished line.
final class LineSplitter: @unchecked Sendable {
    private var buffer: [UInt8] = []
    private let lock = NSLock()
    private let emit: (String) -> Void

    init(emit: @escaping (String) -> Void) { self.emit = emit }

    func feed(_ data: Data) {
        lock.lock()
        defer { lock.unlock() }
        for byte in data {
            if byte == 0x0A {
                emit(String(decoding: buffer, as: UTF8.self))
                buffer.removeAll(keepingCapacity: true)
            } else if buffer.count < 8192 {
                buffer.append(byte)
            }
        }
    }

    func flush() {
        lock.lock()
        defer { lock.unlock() }
        if !buffer.isEmpty { emit(String(decoding: buffer, as: UTF8.self)); buffer.removeAll() }
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
        return .source(ExecProcess(configuration: config, executable: executable, endpoints: setup.endpoints, id: setup.id))
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
