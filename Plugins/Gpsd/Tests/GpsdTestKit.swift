import Foundation
import LocusCore
import Logging
#if canImport(Glibc)
import Glibc
import LocusTestKit
#endif

@_exported import LocusTestKit

/// The shared in-memory harness (LocusTestKit).
typealias Harness = PluginHarness

enum Fixtures {
    static func url(_ name: String) -> URL {
        Bundle.module.resourceURL!.appendingPathComponent("Fixtures/\(name)")
    }

    static func lines(_ name: String) throws -> [String] {
        try String(contentsOf: url(name), encoding: .utf8).split(whereSeparator: \.isNewline).map(String.init)
    }

    /// The JSON objects of a file (gpsd output or a `.chk`: NMEA echo lines are left out).
    static func jsonObjects(_ name: String) throws -> [[String: Any]] {
        try lines(name).filter { $0.hasPrefix("{") }.map {
            try JSONSerialization.jsonObject(with: Data($0.utf8)) as! [String: Any]
        }
    }
}


/// Both absent, or both present and at most `tolerance` apart.
func near(_ a: Double?, _ b: Double?, _ tolerance: Double) -> Bool {
    switch (a, b) {
    case (nil, nil): return true
    case let (a?, b?): return abs(a - b) <= tolerance
    default: return false
    }
}

/// A TCP port nothing listens on right now (bound to port 0, read back, released).
func freePort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    addr.sin_port = 0
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, len) } }
    _ = withUnsafeMutablePointer(to: &addr) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &len) } }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// A gpsfake process (Debian package gpsd-clients), which runs its own gpsd on `port`
/// and feeds it an NMEA log through a pseudo-terminal.
/// Immutable after init: only `let`s, and `Process` and `Pipe` are `Sendable`.
final class GpsFake: @unchecked Sendable {
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for dir in path.split(separator: ":") + ["/usr/bin", "/usr/local/bin"] {
            let p = "\(dir)/gpsfake"
            if FileManager.default.isExecutableFile(atPath: p) { return p }
        }
        return nil
    }()
    static var isInstalled: Bool { executable != nil }

    let process = Process()
    let stdin = Pipe()
    let port: Int
    /// gpsfake's (and its gpsd's) standard error, for a failing test to show.
    let stderrPath = FileManager.default.temporaryDirectory.appendingPathComponent("gpsfake-\(UUID().uuidString).err").path

    /// `stepped`: gpsfake waits for a newline on stdin before each sentence (`-l -i`), so the
    /// test can release the log once the client is watching (gpsd drops what a pty received
    /// before a client activated the device).
    init(log: URL, port: Int, stepped: Bool, once: Bool, cycle: Double? = nil) throws {
        self.port = port
        // Foundation's Process passes the spawning thread's signal mask on to the child, and
        // the test runner's threads block SIGTERM: gpsfake's gpsd would hold the SIGTERM of
        // `stop()` pending until it is killed 5 s later. gpsfake is a python3 script, so
        // python3 is there to clear the mask and exec it.
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        let unblock = "import os, signal, sys; signal.pthread_sigmask(signal.SIG_SETMASK, []); os.execv(sys.argv[1], sys.argv[1:])"
        var args = ["-c", unblock, GpsFake.executable!, "-P", String(port), "-q"]
        if once { args.append("-1") }
        if stepped { args += ["-l", "-i"] }
        if let cycle { args += ["-c", String(cycle)] }
        args.append(log.path)
        process.arguments = args
        process.standardInput = stdin
        process.standardOutput = FileHandle.nullDevice
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: stderrPath) ?? FileHandle.nullDevice
        try process.run()
    }

    deinit { try? FileManager.default.removeItem(atPath: stderrPath) }

    /// The last `limit` characters gpsfake and its gpsd wrote to standard error.
    func stderrTail(_ limit: Int = 1500) -> String {
        String(((try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "").suffix(limit))
    }

    /// Lets `count` more sentences through (stepped mode).
    func release(_ count: Int) {
        try? stdin.fileHandleForWriting.write(contentsOf: Data(repeating: 0x0A, count: count))
    }

    func waitForExit(timeout: Double) async -> Bool {
        await waitUntil(timeout: timeout) { !process.isRunning }
    }

    /// Stops gpsfake and its gpsd; if gpsfake does not exit, kills it and its children by pid.
    func stop() async {
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        let children = GpsFake.children(of: pid)
        // Not SIGTERM to gpsfake: its handler polls gpsd until it is gone, and if the signal
        // lands while gpsfake's main loop is itself polling gpsd, Python's subprocess lock makes
        // every poll in the handler say "alive", so gpsfake spins there until killed. Stopping
        // its gpsd lets the main loop end gpsfake ("daemon died"); end of input wakes a gpsfake
        // waiting for the next step.
        for c in children { kill(c, SIGTERM) }
        try? stdin.fileHandleForWriting.close()
        if await waitForExit(timeout: 5) {
            // gpsd got SIGTERM; make sure it is gone.
            for c in children where kill(c, 0) == 0 { kill(c, SIGKILL) }
            return
        }
        for c in GpsFake.children(of: pid) + children { kill(c, SIGKILL) }
        kill(pid, SIGKILL)
        _ = await waitForExit(timeout: 2)
    }

    /// Pids whose parent is `pid` (from /proc).
    static func children(of pid: Int32) -> [Int32] {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return [] }
        var out: [Int32] = []
        for e in entries {
            guard let p = Int32(e), let stat = try? String(contentsOfFile: "/proc/\(e)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { continue }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            if fields.count > 1, Int32(fields[1]) == pid { out.append(p) }
        }
        return out
    }
}
