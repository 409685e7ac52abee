import Foundation
import LocusTestKit

/// A real Mosquitto broker (Debian `mosquitto`) on a free loopback port, for the `mqtt` sink's
/// end-to-end tests. `extra` lines go into its config file (listeners' TLS, password files, limits).
final class MQTTBroker {
    static let executable = "/usr/sbin/mosquitto"
    let port: Int
    let directory: String
    let configPath: String
    private(set) var process: ChildProcess?

    /// Writes the config; `persistent` keeps sessions and queued messages across a restart
    /// (saved on SIGTERM), as a broker serving a fleet is configured.
    convenience init(directory: String, persistent: Bool = false, extra: [String] = []) throws {
        var lines = extra.isEmpty || !extra.contains(where: { $0.hasPrefix("password_file") }) ? ["allow_anonymous true"] : ["allow_anonymous false"]
        lines += persistent ? ["persistence true", "autosave_interval 1"] : ["persistence false"]
        try self.init(directory: directory, settings: lines + extra)
    }

    /// A broker configured as `configFile` (an example's mosquitto.conf) says, but on a free
    /// loopback port, with its persistence file in `directory` and its log on stderr: the
    /// file's own `listener`, `persistence_location`, `log_dest`, `pid_file` and `user` lines
    /// are replaced, everything else is kept as written.
    convenience init(directory: String, configFile: String) throws {
        let replaced: Set<String> = ["listener", "persistence_location", "log_dest", "pid_file", "user"]
        let text = try String(contentsOfFile: configFile, encoding: .utf8)
        let kept = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { line in
            !line.isEmpty && !line.hasPrefix("#") && !replaced.contains(String(line.prefix { $0 != " " }))
        }
        try self.init(directory: directory, settings: kept)
    }

    private init(directory: String, settings: [String]) throws {
        port = try MetricsTests.freePort()
        self.directory = directory
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        configPath = directory + "/mosquitto.conf"
        // Started as root, mosquitto would switch to the `mosquitto` user, which cannot write
        // the test's private directory: stay who we are.
        var lines = ["listener \(port) 127.0.0.1", "user \(NSUserName())", "persistence_location \(directory)/"]
        lines += ["log_dest stderr", "log_type error", "log_type warning", "log_type notice", "log_type information"]
        lines += settings
        try (lines.joined(separator: "\n") + "\n").write(toFile: configPath, atomically: true, encoding: .utf8)
    }

    /// Starts the broker and waits until it accepts connections. The test process blocks
    /// SIGTERM (and SIGINT, SIGHUP) in its threads, and a child inherits the blocked set: the
    /// broker starts with an empty one, or `stop()` could not stop it cleanly (10 s, then
    /// SIGKILL, without saving its persistence file).
    func start() async throws {
        let unblocked = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, set()); os.execv(sys.argv[1], sys.argv[1:])"
        let p = try ChildProcess(E2E.python, ["-c", unblocked, Self.executable, "-c", configPath], directory: directory)
        process = p
        let port = self.port
        let up = await waitUntil(timeout: 10) { Self.accepts(port: port) }
        if !up { throw MQTTBrokerError(text: "mosquitto did not start: \(p.stderr)") }
    }

    /// Stops it with SIGTERM (it saves its persistence file) and waits for the exit.
    func stop() async {
        _ = await process?.terminate(timeout: 10)
        process = nil
    }

    static func accepts(port: Int) -> Bool { LoopbackPort.accepts(port) }

    deinit { process?.kill9() }
}

struct MQTTBrokerError: Error, CustomStringConvertible {
    var text: String
    var description: String { text }
}

/// One line of `mqtt_collect.py`'s output.
struct CollectedMQTTMessage {
    var topic: String
    var retain: Bool
    var payload: String
    /// The journal index (MQTT 5 user property locus-journal-index), if sent.
    var index: Int?

    static func read(_ path: String) -> [CollectedMQTTMessage] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let topic = o["topic"] as? String, let payload = o["payload"] as? String else { return nil }
            return CollectedMQTTMessage(topic: topic, retain: o["retain"] as? Bool ?? false, payload: payload, index: o["index"] as? Int)
        }
    }

    /// The envelope's producer, seq and time: what identifies one event (seq alone restarts at
    /// 1 when Locus restarts), and how a consumer de-duplicates QoS 1's repeats.
    var identity: String? {
        guard let o = try? JSONSerialization.jsonObject(with: Data(payload.utf8)) as? [String: Any],
              let producer = o["producer"] as? String, let seq = o["seq"] as? Int, let time = o["time"] as? String else { return nil }
        return "\(producer)#\(seq)@\(time)"
    }
}
