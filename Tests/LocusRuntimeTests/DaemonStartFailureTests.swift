import Foundation
#if canImport(Glibc)
import Glibc
#endif
import LocusBus
import LocusCore
import Logging
import Testing
@testable import LocusRuntime

/// Issue 32 item 1: the daemon's bus parts are started in order and stopped in reverse by one
/// teardown. A part that cannot start stops every part started before it: nothing stays bound,
/// the journal is closed, and the same config starts once the endpoint is free.
@Suite(.serialized) struct DaemonStartFailureTests {
    static func daemon(_ directory: String, publishPort: Int, controlPort: Int) throws -> Daemon {
        let yaml = """
            hub:
              ingest: ["ipc://\(directory)/ingest.sock"]
              publish: ["tcp://127.0.0.1:\(publishPort)"]
              control: "tcp://127.0.0.1:\(controlPort)"
              catchup: ["ipc://\(directory)/catchup.sock"]
              state_directory: "\(directory)/state"
            log:
              level: warning
            """
        var logger = Logger(label: "test.daemon")
        logger.logLevel = .critical
        let loader = ConfigLoader(factories: CommandTestPlugins.factories, environment: ["LOCUS_RUNTIME_DIR": directory], logger: logger)
        let configuration = try loader.load(text: yaml, file: "test.yaml", directory: directory)
        return Daemon(configuration: configuration, registry: CommandTestPlugins.registry, logger: logger)
    }

    /// Whether a TCP socket can bind 127.0.0.1:`port` now (0: any port; the port bound is
    /// returned through `bound`). ZeroMQ closes its sockets on its own I/O thread, a moment after
    /// `close` returns, so callers poll.
    static func bindable(_ port: Int, bound: UnsafeMutablePointer<Int>? = nil) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        addr.sin_port = UInt16(port).bigEndian
        var len = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ok = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } } == 0
        if ok, let bound {
            _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
            bound.pointee = Int(UInt16(bigEndian: addr.sin_port))
        }
        return ok
    }

    static func waitUntilBindable(_ port: Int) async -> Bool {
        for _ in 0 ..< 60 {
            if bindable(port) { return true }
            try? await Task.sleep(nanoseconds: 50_000_000)
        }
        return false
    }

    @Test func aControlSocketThatCannotBindStopsTheHubTheCatchupServerAndTheJournal() async throws {
        let directory = "/tmp/lsf-\(UUID().uuidString.prefix(8).lowercased())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let context = ZMQContext()
        var publishPort = 0
        #expect(Self.bindable(0, bound: &publishPort) && publishPort > 0)
        // Another program holds the control port.
        let squatter = try ZMQSocket(context: context, type: .rep)
        try squatter.setOption(.linger(milliseconds: 0))
        try squatter.bind("tcp://127.0.0.1:*")
        let controlPort = Int(try squatter.lastEndpoint.split(separator: ":").last.map(String.init) ?? "") ?? 0

        let failing = try Self.daemon(directory, publishPort: publishPort, controlPort: controlPort)
        let error = await #expect(throws: (any Error).self) { try await failing.run(shutdownSignals: []) }
        #expect("\(error.map { "\($0)" } ?? "")".contains("\(controlPort)"), "\(String(describing: error))")
        // The parts started before the control socket are stopped: the hub's publish port is
        // free, the ipc socket files are gone.
        #expect(await Self.waitUntilBindable(publishPort), "the hub still holds \(publishPort)")
        for file in ["ingest.sock", "catchup.sock"] {
            #expect(!FileManager.default.fileExists(atPath: directory + "/" + file), "\(file) left behind")
        }

        // With the port free, the same configuration runs and stops cleanly.
        squatter.close()
        #expect(await Self.waitUntilBindable(controlPort))
        let daemon = try Self.daemon(directory, publishPort: publishPort, controlPort: controlPort)
        let task = Task { try await daemon.run(shutdownSignals: []) }
        let control = "tcp://127.0.0.1:\(controlPort)"
        var answered = false
        for _ in 0 ..< 100 where !answered {
            try await Task.sleep(nanoseconds: 50_000_000)
            let body = ControlRequest(command: "status", arguments: [:]).encoded
            answered = await withCheckedContinuation { (c: CheckedContinuation<Bool, Never>) in
                Thread { c.resume(returning: (try? ControlClient.request(body, endpoint: control, timeout: 1)) != nil) }.start()
            }
        }
        #expect(answered, "the second daemon did not answer on \(control)")
        await daemon.shutdown()
        try await task.value
        // Stopped in reverse: nothing left bound here either.
        #expect(await Self.waitUntilBindable(publishPort), "the hub still holds \(publishPort) after shutdown")
    }
}
