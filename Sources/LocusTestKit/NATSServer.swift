import Foundation

/// A real nats-server (Debian `nats-server`) with JetStream on disk in a test's directory, on
/// free loopback ports: alone, or as a node of a cluster (`NATSServer.cluster`), optionally with
/// its MQTT gateway. Killed when the test lets go of it.
public final class NATSServer: @unchecked Sendable {  // `process` is set by start() before it is shared.
    public static let executable = "/usr/sbin/nats-server"
    public let name: String
    public let port: Int
    public let clusterPort: Int?
    public let mqttPort: Int?
    public let directory: String
    private var process: Process?
    private let log: FileHandle

    public var url: String { "nats://127.0.0.1:\(port)" }

    /// Writes the node's config file; `routes` are the other nodes' cluster ports, `extra` more
    /// lines of nats-server's configuration (`mappings`, accounts, limits).
    public convenience init(directory: String, name: String = "n1", clusterPort: Int? = nil, routes: [Int] = [], mqtt: Bool = false,
                            extra: [String] = []) throws {
        let ports = try LoopbackPort.free(count: 2)
        let port = ports[0]
        let mqttPort = mqtt ? ports[1] : nil
        var lines = ["server_name: \(name)", "listen: 127.0.0.1:\(port)", "jetstream { store_dir: \"\(directory)/jetstream\" }"]
        if let clusterPort {
            let others = routes.map { "nats-route://127.0.0.1:\($0)" }.joined(separator: ", ")
            lines.append("cluster { name: locus-test, listen: 127.0.0.1:\(clusterPort), routes: [\(others)] }")
        }
        if let mqttPort { lines.append("mqtt { listen: 127.0.0.1:\(mqttPort) }") }
        lines += extra
        try self.init(directory: directory, name: name, configText: lines.joined(separator: "\n") + "\n", port: port,
                      clusterPort: clusterPort, mqttPort: mqttPort)
    }

    /// A node configured by `configText` as written (an example's file with its ports and
    /// directories replaced), which listens for clients on `port`.
    public init(directory: String, name: String, configText: String, port: Int, clusterPort: Int? = nil, mqttPort: Int? = nil) throws {
        self.name = name
        self.directory = directory
        self.port = port
        self.clusterPort = clusterPort
        self.mqttPort = mqttPort
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try configText.write(toFile: directory + "/nats.conf", atomically: true, encoding: .utf8)
        FileManager.default.createFile(atPath: directory + "/nats.log", contents: nil)
        log = try FileHandle(forWritingTo: URL(fileURLWithPath: directory + "/nats.log"))
    }

    /// `size` nodes routed to each other, each in its own folder under `directory`.
    public static func cluster(directory: String, size: Int) throws -> [NATSServer] {
        let clusterPorts = try LoopbackPort.free(count: size)
        return try (0..<size).map { i in
            try NATSServer(directory: "\(directory)/n\(i + 1)", name: "n\(i + 1)", clusterPort: clusterPorts[i],
                           routes: clusterPorts.enumerated().filter { $0.offset != i }.map(\.element))
        }
    }

    /// Starts the server and waits until it accepts connections (JetStream may need a moment
    /// more in a cluster, while its nodes elect a leader: callers retry their first request).
    public func start(timeout: Double = 10) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: Self.executable)
        p.arguments = ["-c", directory + "/nats.conf"]
        p.standardOutput = log
        p.standardError = log
        try p.run()
        process = p
        let deadline = Date().addingTimeInterval(timeout)
        while !LoopbackPort.accepts(port) {
            guard Date() < deadline, p.isRunning else { throw NATSServerError(text: "nats-server \(name) did not start:\n\(logText)") }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// What the server wrote so far.
    public var logText: String { (try? String(contentsOfFile: directory + "/nats.log", encoding: .utf8)) ?? "" }

    /// Sends `signal` to the server (SIGSTOP: it stops answering, as a frozen machine; SIGCONT).
    public func signal(_ signal: Int32) {
        guard let p = process, p.isRunning else { return }
        kill(p.processIdentifier, signal)
    }

    public func kill9() {
        guard let p = process, p.isRunning else { return }
        kill(p.processIdentifier, SIGKILL)
        p.waitUntilExit()
        process = nil
    }

    deinit { kill9() }
}

public struct NATSServerError: Error, CustomStringConvertible {
    public var text: String
    public var description: String { text }
}
