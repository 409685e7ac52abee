import Foundation
import LocusCore
import Testing
import LocusBus // deliberately not @testable: only what the runtime and CLI can see

/// The calls LocusRuntime and the `locus` CLI make, as they make them, so an API change that
/// would break them fails here first.
@Suite("API as the runtime uses it")
struct RuntimeUsageTests {
    @Test func statusCountersAreKeyedByReasonName() throws {
        let context = ZMQContext()
        let hub = Hub(configuration: HubConfiguration(ingestEndpoints: [], publishEndpoints: []),
                      registry: .core, context: context, logger: quietLogger)
        try hub.start()
        defer { hub.stop() }
        let s = hub.statistics
        var dropped: [String: Double] = [:]
        for (k, v) in s.dropped { dropped[k] = Double(v) }
        #expect(Set(dropped.keys) == ["wrong_frame_count", "bad_topic", "too_large", "not_json", "missing_field",
                                      "wrong_field_type", "unknown_type", "bad_payload", "subscription_limit", "reserved", "rate_limit"])
        #expect(Set(EnvelopeProblem.allCases.map(\.rawValue)).isSubset(of: Set(dropped.keys)))
        #expect(s.forwarded == 0)
    }

    @Test func cliSubscriberLoopCalls() throws {
        let context = ZMQContext()
        let socket = try ZMQSocket(context: context, type: .sub)
        defer { socket.close() }
        try socket.setReceiveHighWaterMark(0)
        try socket.setLinger(0)
        try socket.setReceiveTimeout(100)
        for p in [""] { try socket.subscribe(p) }
        try Endpoint.validate("inproc://nowhere")
        try socket.connect("inproc://nowhere")
        #expect(try socket.receiveMultipart(timeoutMilliseconds: 10) == nil)
    }

    @Test func ctlCallsTheStaticRequest() {
        let error = #expect(throws: ControlClientError.self) {
            try ControlClient.request(Array("{}".utf8), endpoint: "tcp://127.0.0.1:9", timeout: 0.2)
        }
        #expect(error?.kind == .noReply)
    }
}
