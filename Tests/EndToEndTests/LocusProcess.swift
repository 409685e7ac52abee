import Foundation

/// Paths and programs the end-to-end tests use.
enum E2E {
    static let repoRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path

    /// The `locus` binary built next to this test bundle (override with LOCUS_BINARY).
    static var binary: String {
        if let b = ProcessInfo.processInfo.environment["LOCUS_BINARY"] { return b }
        let exe = URL(fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0])
        var dir = exe.deletingLastPathComponent()
        // Inside an .xctest bundle the executable sits a few levels down.
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("locus").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return repoRoot + "/.build/debug/locus"
    }

    /// Debian's Python, which has python3-zmq and python3-jsonschema (override with LOCUS_TEST_PYTHON).
    static var python: String { ProcessInfo.processInfo.environment["LOCUS_TEST_PYTHON"] ?? "/usr/bin/python3" }

    static func fixture(_ name: String) -> String { repoRoot + "/Tests/EndToEndTests/Fixtures/" + name }

    static func script(_ name: String) -> String { repoRoot + "/Tests/EndToEndTests/Scripts/" + name }

    static func temporaryDirectory() -> String {
        // Short paths: ipc socket paths must fit in 107 bytes.
        let dir = "/tmp/locus-e2e-\(UUID().uuidString.prefix(8))"
        // Private: `locus run` refuses a runtime directory others can reach.
        try! FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        return dir
    }
}

/// A child process with its output captured to files.
final class ChildProcess {
    let process = Process()
    let stdoutPath: String
    let stderrPath: String

    init(_ executable: String, _ arguments: [String], directory: String, environment: [String: String] = [:]) throws {
        // Output goes to a scratch directory, never into `directory` (which may be a fixture folder).
        let scratch = NSTemporaryDirectory() + "locus-e2e-output"
        try? FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let name = UUID().uuidString.prefix(8)
        stdoutPath = scratch + "/\(name).out"
        stderrPath = scratch + "/\(name).err"
        FileManager.default.createFile(atPath: stdoutPath, contents: nil)
        FileManager.default.createFile(atPath: stderrPath, contents: nil)
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: E2E.repoRoot)
        var env = ProcessInfo.processInfo.environment
        env.merge(environment) { _, n in n }
        // Services keep their state in the state directory (issue 31): a test that names its own
        // runtime directory gets a state directory inside it, unless it names one, so two tests
        // running a service of the same id on the same recording do not share what it processed.
        if let runtime = environment["LOCUS_RUNTIME_DIR"], environment["LOCUS_STATE_DIR"] == nil {
            env["LOCUS_STATE_DIR"] = runtime + "/state"
        }
        process.environment = env
        process.standardOutput = FileHandle(forWritingAtPath: stdoutPath)
        process.standardError = FileHandle(forWritingAtPath: stderrPath)
        process.standardInput = FileHandle.nullDevice
        try process.run()
    }

    var stdout: String { (try? String(contentsOfFile: stdoutPath, encoding: .utf8)) ?? "" }
    var stderr: String { (try? String(contentsOfFile: stderrPath, encoding: .utf8)) ?? "" }

    /// Waits up to `timeout` seconds; returns the exit status, or nil if still running.
    func wait(timeout: Double) async -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        // Sleeping, not blocking: tests share the cooperative thread pool with the code under test.
        while process.isRunning && Date() < deadline { try? await Task.sleep(nanoseconds: 10_000_000) }
        if process.isRunning { return nil }
        return process.terminationStatus
    }

    /// Sends SIGTERM and returns (status, seconds until exit), killing it after `timeout`.
    func terminate(timeout: Double = 5) async -> (status: Int32?, seconds: Double) {
        let start = Date()
        kill(process.processIdentifier, SIGTERM)
        let status = await wait(timeout: timeout)
        let seconds = Date().timeIntervalSince(start)
        if status == nil { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        return (status, seconds)
    }

    /// Kills the process at once (for `defer`, where a test cannot wait).
    func kill9() {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }

    deinit { kill9() }
}

/// Runs a program to completion and returns its status and output.
@discardableResult
func runToEnd(_ executable: String, _ arguments: [String], directory: String, environment: [String: String] = [:],
              timeout: Double = 60) async throws -> (status: Int32, stdout: String, stderr: String) {
    let child = try ChildProcess(executable, arguments, directory: directory, environment: environment)
    guard let status = await child.wait(timeout: timeout) else {
        kill(child.process.processIdentifier, SIGKILL)
        return (-1, child.stdout, child.stderr + "\n(timed out after \(timeout) s)")
    }
    return (status, child.stdout, child.stderr)
}

func waitUntil(timeout: Double, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return condition()
}

/// Reads `read()` until it returns the same value for `quiet` seconds (or `timeout` passes) and
/// returns that value. A source's "finished" log comes before the services have handled its last
/// observations, so what the daemon journals must settle before a test counts it.
func settled<T: Equatable>(timeout: Double = 15, quiet: Double = 1, _ read: () -> T) async -> T {
    let deadline = Date().addingTimeInterval(timeout)
    var last = read(), since = Date()
    while Date() < deadline {
        try? await Task.sleep(nanoseconds: 100_000_000)
        let now = read()
        if now != last { last = now; since = Date() } else if Date().timeIntervalSince(since) >= quiet { break }
    }
    return last
}

/// Recording-format lines of a file, decoded just enough for assertions (Foundation; not the code under test).
struct RecordedMessage {
    var topic: String
    var type: String
    var producer: String
    var seq: Int
    var payload: [String: Any]

    static func read(_ path: String) -> [RecordedMessage] {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap { decode(String($0)) }
    }

    /// One line; a message with empty fields if it is not a recording line.
    static func read(line: String) -> RecordedMessage {
        decode(line) ?? RecordedMessage(topic: "", type: "", producer: "", seq: -1, payload: [:])
    }

    private static func decode(_ line: String) -> RecordedMessage? {
        guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
              let e = o["envelope"] as? [String: Any] else { return nil }
        return RecordedMessage(topic: o["topic"] as? String ?? "", type: e["type"] as? String ?? "",
                               producer: e["producer"] as? String ?? "", seq: e["seq"] as? Int ?? -1,
                               payload: e["payload"] as? [String: Any] ?? [:])
    }
}
