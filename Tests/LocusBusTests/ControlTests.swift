import Foundation
import LocusCore
import Testing
@testable import LocusBus

@Suite("Control endpoint")
struct ControlTests {
    @Test func requestAndReplyRoundTrip() async throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let context = ZMQContext()
        let endpoint = dir.endpoint("control.sock")
        let server = ControlServer(context: context, endpoint: endpoint, logger: quietLogger) { request in
            Array("{\"ok\":true,\"echo\":".utf8) + request + [0x7D]
        }
        try server.start()
        let client = ControlClient(context: context)
        let reply = try await onThread { try client.request(Samples.bytes(#"{"cmd":"status"}"#), endpoint: endpoint, timeout: 5) }
        #expect(String(decoding: reply, as: UTF8.self) == #"{"ok":true,"echo":{"cmd":"status"}}"#)
        // Each request gets its own socket: a second one works too.
        let second = try await onThread { try client.request(Samples.bytes("[]"), endpoint: endpoint, timeout: 5) }
        #expect(second == Samples.bytes(#"{"ok":true,"echo":[]}"#))
        server.stop()
        #expect(!FileManager.default.fileExists(atPath: dir.file("control.sock")))
    }

    /// A slow request runs on while others are answered, and its reply is its real outcome.
    /// Before: the REP socket served one request at a time (a concurrent `status` waited 9.8 s
    /// behind a slow `region.add`), and a slow one got "not answered within 10 s" although its
    /// command went on and was applied.
    @Test func aSlowRequestHoldsUpNoOneAndGetsItsRealReply() async throws {
        let context = ZMQContext()
        let server = ControlServer(context: context, endpoint: "inproc://control", logger: quietLogger) { request in
            if request == Samples.bytes(#""slow""#) {
                try? await Task.sleep(nanoseconds: 3_000_000_000)
                return Samples.bytes(#"{"ok":true,"result":"slow done"}"#)
            }
            return Samples.bytes(#"{"ok":true}"#)
        }
        try server.start()
        defer { server.stop() }
        let client = ControlClient(context: context)
        let notJSON = try await onThread { try client.request(Samples.bytes("status please"), endpoint: "inproc://control", timeout: 10) }
        #expect(String(decoding: notJSON, as: UTF8.self) == #"{"ok":false,"error":"the request is not valid UTF-8 JSON"}"#)
        async let slow = onThread { try ControlClient(context: context).request(Samples.bytes(#""slow""#), endpoint: "inproc://control", timeout: 20) }
        try await Task.sleep(nanoseconds: 300_000_000)
        let started = Date()
        let quick = try await onThread { try client.request(Samples.bytes("{}"), endpoint: "inproc://control", timeout: 10) }
        #expect(String(decoding: quick, as: UTF8.self) == #"{"ok":true}"#)
        #expect(Date().timeIntervalSince(started) < 1.5, "answered while the slow one runs")
        #expect(server.statistics.inProgress == 1)
        #expect(String(decoding: try await slow, as: UTF8.self) == #"{"ok":true,"result":"slow done"}"#)
        // Two frames from a raw REQ socket.
        let twoFrames = try await onThread { () -> [[UInt8]]? in
            let req = try ZMQSocket(context: context, type: .req)
            defer { req.close() }
            try req.setOption(.linger(milliseconds: 0))
            try req.connect("inproc://control")
            try req.send([Samples.bytes("{}"), Samples.bytes("{}")])
            return try receive(req)
        }
        #expect(twoFrames.map { String(decoding: $0[0], as: UTF8.self).contains("exactly one frame") } == true)
        #expect(server.statistics.refused[.malformed] == 2)
    }

    /// A request over the limit is refused with a reply that says so, never handed on. Before:
    /// a 100 MB request was accepted (peak 454 MB).
    @Test func anOversizedRequestIsRefusedAndCounted() async throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        // ipc, not inproc: ZeroMQ's message size limit applies where messages are decoded.
        let endpoint = dir.endpoint("control.sock")
        let context = ZMQContext()
        let handled = ManagedCounter()
        let server = ControlServer(context: context, endpoint: endpoint, logger: quietLogger, limits: .with { $0.maxRequestBytes = 4096 }) { _ in
            handled.increment()
            return Samples.bytes(#"{"ok":true}"#)
        }
        try server.start()
        defer { server.stop() }
        let big = Samples.bytes("\"" + String(repeating: "x", count: 5000) + "\"")
        let reply = try await onThread { try ControlClient(context: context).request(big, endpoint: endpoint, timeout: 10) }
        let text = String(decoding: reply, as: UTF8.self)
        #expect(text.contains(#""ok":false"#) && text.contains("over the control socket's limit of 4096 bytes"), "\(text)")
        #expect(handled.value == 0)
        #expect(server.statistics.refused[.tooLarge] == 1)
        // Past the cut-off ZeroMQ drops the connection: no reply, and no memory taken.
        let huge = Samples.bytes("\"" + String(repeating: "x", count: ControlServer.connectionCutoff(4096) + 10) + "\"")
        #expect(throws: ControlClientError.self) {
            try ControlClient(context: context).request(huge, endpoint: endpoint, timeout: 1)
        }
        let after = try await onThread { try ControlClient(context: context).request(Samples.bytes("{}"), endpoint: endpoint, timeout: 10) }
        #expect(String(decoding: after, as: UTF8.self) == #"{"ok":true}"#)
    }

    @Test func clientTimeoutSaysWhatToCheck() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let context = ZMQContext()
        let endpoint = dir.endpoint("mute.sock")
        // Something listens but never answers.
        let mute = try ZMQSocket(context: context, type: .rep)
        try mute.setOption(.linger(milliseconds: 0))
        try mute.bind(endpoint)
        let started = Date()
        let error = #expect(throws: ControlClientError.self) {
            try ControlClient(context: context).request(Samples.bytes("{}"), endpoint: endpoint, timeout: 0.3)
        }
        #expect(Date().timeIntervalSince(started) < 2)
        #expect(error?.description.hasPrefix("no reply from \(endpoint) within 0.3 s — is `locus run` running?") == true)
        #expect(error?.description.contains("may still be in progress") == true)
        mute.close()

        let missing = dir.endpoint("nothing.sock")
        let notThere = #expect(throws: ControlClientError.self) {
            try ControlClient(context: context).request(Samples.bytes("{}"), endpoint: missing, timeout: 5)
        }
        #expect(notThere?.description == "nothing is listening at \(missing) (no socket file) — is `locus run` running?")
    }
}

/// A counter handlers bump from their tasks.
final class ManagedCounter: @unchecked Sendable {
    /// Guards `count`.
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
