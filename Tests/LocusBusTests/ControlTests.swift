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

    @Test func malformedAndSlowRequestsGetErrorRepliesAndDoNotWedgeTheServer() async throws {
        let context = ZMQContext()
        // The timeout leaves room for a busy machine: handlers run on the cooperative pool, which
        // CPU-heavy tests running in parallel may hold for a while.
        let server = ControlServer(context: context, endpoint: "inproc://control", logger: quietLogger, handlerTimeout: 2) { request in
            if request == Samples.bytes(#""slow""#) { try? await Task.sleep(nanoseconds: 30_000_000_000) }
            return Samples.bytes(#"{"ok":true}"#)
        }
        try server.start()
        defer { server.stop() }
        let client = ControlClient(context: context)
        let notJSON = try await onThread { try client.request(Samples.bytes("status please"), endpoint: "inproc://control", timeout: 10) }
        #expect(String(decoding: notJSON, as: UTF8.self) == #"{"ok":false,"error":"the request is not valid UTF-8 JSON"}"#)
        let slow = try await onThread { try client.request(Samples.bytes(#""slow""#), endpoint: "inproc://control", timeout: 10) }
        #expect(String(decoding: slow, as: UTF8.self) == #"{"ok":false,"error":"the request was not answered within 2 s"}"#)
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
        let after = try await onThread { try client.request(Samples.bytes("{}"), endpoint: "inproc://control", timeout: 10) }
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
        #expect(error?.description == "no reply from \(endpoint) within 0.3 s — is `locus run` running?")
        mute.close()

        let missing = dir.endpoint("nothing.sock")
        let notThere = #expect(throws: ControlClientError.self) {
            try ControlClient(context: context).request(Samples.bytes("{}"), endpoint: missing, timeout: 5)
        }
        #expect(notThere?.description == "nothing is listening at \(missing) (no socket file) — is `locus run` running?")
    }
}
