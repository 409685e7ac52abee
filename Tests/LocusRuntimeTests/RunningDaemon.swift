import Foundation
import LocusBus
import LocusCore
import Logging
@testable import LocusRuntime

/// A real `Daemon` on ipc sockets in a temporary directory, with the toy plugins of
/// `CommandTestPlugins`, asked over its real control socket.
struct RunningDaemon {
    let daemon: Daemon
    let task: Task<Void, Error>
    let directory: String
    var control: String { "ipc://\(directory)/control.sock" }

    /// Starts a daemon whose config has `plugins` (YAML sections) and waits until every plugin runs.
    /// `hub` adds lines to the `hub:` section (indented by two spaces).
    static func start(_ plugins: String, hub: String = "", serviceCommandTimeout: Double = 5) async throws -> RunningDaemon {
        let directory = "/tmp/lrt-\(UUID().uuidString.prefix(8).lowercased())"
        // Private: the daemon refuses a runtime directory others can reach.
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let yaml = """
            hub:
              ingest: ["ipc://\(directory)/ingest.sock"]
              publish: ["ipc://\(directory)/publish.sock"]
              control: "ipc://\(directory)/control.sock"
            \(hub.split(separator: "\n").map { "  " + $0 }.joined(separator: "\n"))
            log:
              level: warning
            \(plugins)
            """
        var logger = Logger(label: "test.daemon")
        logger.logLevel = .warning
        let loader = ConfigLoader(factories: CommandTestPlugins.factories, environment: ["LOCUS_RUNTIME_DIR": directory],
                                  logger: logger)
        let configuration = try loader.load(text: yaml, file: "test.yaml", directory: directory)
        let daemon = Daemon(configuration: configuration, registry: CommandTestPlugins.registry, logger: logger,
                            serviceCommandTimeout: serviceCommandTimeout)
        let task = Task { try await daemon.run(shutdownSignals: []) }
        let running = RunningDaemon(daemon: daemon, task: task, directory: directory)
        let count = configuration.plugins.count
        let ready = try await running.waitUntil(timeout: 20) {
            guard let states = try? await running.pluginStates() else { return false }
            return states.count == count && states.values.allSatisfy { $0 == "running" }
        }
        if !ready {
            let states = try? await running.pluginStates()
            await running.stop()
            let ended = await task.result
            throw RunningDaemonError(description: "the daemon's plugins did not all reach running within 20 s: \(states.map { "\($0)" } ?? "no status"); the daemon: \(ended)")
        }
        return running
    }

    /// Sends one request over the control socket and returns the whole reply.
    func request(_ command: String, _ args: [String: JSONValue] = [:]) async throws -> JSONValue {
        let body = ControlRequest(command: command, arguments: args).encoded
        let endpoint = control
        // Off the cooperative pool: the client blocks its thread while it waits.
        let reply = try await withCheckedThrowingContinuation { (c: CheckedContinuation<[UInt8], Error>) in
            Thread { c.resume(with: Result { try ControlClient.request(body, endpoint: endpoint, timeout: 15) }) }.start()
        }
        return try JSONValue.decode(reply)
    }

    /// The `result` of a request that must succeed.
    func result(_ command: String, _ args: [String: JSONValue] = [:]) async throws -> JSONValue {
        let reply = try await request(command, args)
        guard reply["ok"] == .bool(true), let result = reply["result"] else {
            throw RunningDaemonError(description: "\(command) failed: \(reply)")
        }
        return result
    }

    /// The `error` text of a request that must fail.
    func error(_ command: String, _ args: [String: JSONValue] = [:]) async throws -> String {
        let reply = try await request(command, args)
        guard reply["ok"] == .bool(false), let text = reply["error"]?.stringValue else {
            throw RunningDaemonError(description: "\(command) did not fail: \(reply)")
        }
        return text
    }

    /// Plugin id → state, from `status`.
    func pluginStates() async throws -> [String: String] {
        guard case .array(let plugins)? = try await result("status")["plugins"] else { return [:] }
        var states: [String: String] = [:]
        for p in plugins {
            if let id = p["plugin"]?.stringValue, let state = p["state"]?.stringValue { states[id] = state }
        }
        return states
    }

    func waitUntil(timeout: Double, _ condition: () async throws -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if try await condition() { return true }
            try await Task.sleep(nanoseconds: 20_000_000)
        }
        return try await condition()
    }

    func stop() async {
        await daemon.shutdown()
        _ = try? await task.value
        try? FileManager.default.removeItem(atPath: directory)
    }
}

struct RunningDaemonError: Error, CustomStringConvertible {
    var description: String
}
