import Foundation
import LocusCore
import Logging
@testable import LocusBus

/// A directory for one test's ipc sockets. Short (`/tmp/lbt-…`) because socket paths are
/// limited to 107 bytes; removed by `remove()`.
struct TempDirectory {
    let path: String

    init() {
        path = "/tmp/lbt-\(UUID().uuidString.prefix(8).lowercased())"
    }

    func endpoint(_ name: String) -> String { "ipc://\(path)/\(name)" }
    func file(_ name: String) -> String { "\(path)/\(name)" }
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

/// Log records kept in memory, so tests can check what was logged (and that coordinates were not).
final class LogCapture: LogHandler, @unchecked Sendable {
    struct Record { var level: Logger.Level; var message: String; var metadata: String }
    /// Guards `stored`; `metadata` and `logLevel` are never set after init.
    private let lock = NSLock()
    private var stored: [Record] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .trace

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let text = (event.metadata ?? [:]).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        lock.lock()
        stored.append(Record(level: event.level, message: "\(event.message)", metadata: text))
        lock.unlock()
    }

    var records: [Record] {
        lock.lock()
        defer { lock.unlock() }
        return stored
    }

    var logger: Logger {
        Logger(label: "test") { _ in self }
    }
}

/// A logger that drops everything (tests that do not look at logs).
let quietLogger: Logger = {
    var l = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    l.logLevel = .critical
    return l
}()

/// Polls `condition` every 10 ms until it holds or `timeout` seconds pass.
func eventually(timeout: Double = 5, _ condition: () -> Bool) -> Bool {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while Date() < deadline {
        if condition() { return true }
        usleep(10_000)
    }
    return condition()
}

enum Samples {
    static let time = EventTime(milliseconds: 1_715_932_800_100)

    static func fix(_ i: Int, source: String = "gps0") -> Fix {
        // Built from decimal text, so the value survives the 9-decimal wire form exactly.
        Fix(source: source, mode: .threeD, latitude: Double("52.52\(i % 1000)")!, longitude: 13.405, altitudeMSL: 34.2,
            speed: 1.5, course: 90, quality: .gps, satellitesUsed: 9, hdop: 0.9, horizontalAccuracy: 3.5)
    }

    /// A valid envelope as Locus writes it.
    /// The fix's source is the producer: a topic obs.fix.<producer> then names whose it is, as
    /// the hub requires of outside publishers.
    static func fixBody(_ i: Int, producer: String = "gps0", source: String? = nil) -> [UInt8] {
        EnvelopeCodec.encode(fix(i, source: source ?? producer), producer: producer, seq: UInt64(i), time: time.adding(seconds: Double(i)))
    }

    static func bytes(_ s: String) -> [UInt8] { Array(s.utf8) }
}

/// Receives one whole message, waiting up to `timeout` seconds in 100 ms polls.
func receive(_ socket: ZMQSocket, timeout: Double = 5) throws -> [[UInt8]]? {
    let deadline = Date(timeIntervalSinceNow: timeout)
    while Date() < deadline {
        if let frames = try socket.receiveMultipart(timeoutMilliseconds: 100) { return frames }
    }
    return nil
}

/// Runs blocking code (a socket call) on its own thread and awaits its result, so tests do not
/// tie up the cooperative thread pool — which is only as wide as the machine has cores, and
/// which the control server's handler tasks need.
func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread {
            continuation.resume(with: Result { try body() })
        }
        thread.start()
    }
}

/// An outside PUB connected to the hub's ingest `endpoint`, returned once `sub` has received one
/// of its probes on `probeTopic` (a PUB cannot see the hub's subscription arrive), stray probes
/// drained; nil if none came through.
func probedOutsidePublisher(_ context: ZMQContext, ingest endpoint: String, heardBy sub: ZMQSocket, probeTopic: String) throws -> ZMQSocket? {
    let pub = try ZMQSocket(context: context, type: .pub)
    try pub.setOption(.linger(milliseconds: 1000))
    try pub.connect(endpoint)
    var probed = false
    for i in 0..<500 where !probed {
        try pub.send(topic: probeTopic, body: Samples.fixBody(i))
        probed = try sub.receiveMultipart(timeoutMilliseconds: 10) != nil
    }
    guard probed else { pub.close(); return nil }
    while try sub.receiveMultipart(timeoutMilliseconds: 50) != nil {}
    return pub
}
