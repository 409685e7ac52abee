import Foundation
import Testing
@testable import LocusBus

struct ClientRateLimiterTests {
    @Test func aClientGetsItsBurstThenItsRate() {
        var limiter = ClientRateLimiter(perSecond: 10)
        let t0 = ContinuousClock.now
        let a: [UInt8] = [1], b: [UInt8] = [2]
        // A burst of twice the rate, then nothing until time passes.
        var first = 0
        for _ in 0..<20 where limiter.allow(a, now: t0) { first += 1 }
        #expect(first == 20)
        let overBurst = limiter.allow(a, now: t0); #expect(!overBurst)
        // Another client is not held back by the first.
        let otherClient = limiter.allow(b, now: t0); #expect(otherClient)
        // 0.5 s later: 5 more.
        let t1 = t0 + .milliseconds(500)
        var later = 0
        for _ in 0..<5 where limiter.allow(a, now: t1) { later += 1 }
        #expect(later == 5)
        let overRate = limiter.allow(a, now: t1); #expect(!overRate)
        var unlimited = ClientRateLimiter(perSecond: 0)
        var all = 0
        for _ in 0..<10_000 where unlimited.allow(a, now: t0) { all += 1 }
        #expect(all == 10_000)
    }

    @Test func manyClientsStayBounded() {
        var limiter = ClientRateLimiter(perSecond: 1)
        let t0 = ContinuousClock.now
        for i in 0..<(3 * ClientRateLimiter.maxClients) {
            _ = limiter.allow(withUnsafeBytes(of: UInt32(i)) { Array($0) }, now: t0 + .milliseconds(i))
        }
        #expect(limiter.clientCount <= ClientRateLimiter.maxClients)
    }

    /// Over the real control socket: one connection sending as fast as it can is answered up to
    /// its burst, then refused with rate_limited, counted, and the handler never sees those.
    @Test func theControlSocketRefusesAFloodingClient() async throws {
        let context = ZMQContext()
        let handled = Counter()
        let server = ControlServer(context: context, endpoint: "inproc://control-rate", logger: quietLogger, limits: .with { $0.requestsPerSecond = 5 }) { _ in
            handled.add()
            return Samples.bytes(#"{"ok":true}"#)
        }
        try server.start()
        defer { server.stop() }
        let replies: [String] = try await onThread {
            let socket = try ZMQSocket(context: context, type: .req)
            defer { socket.close() }
            try socket.setOption(.linger(milliseconds: 0))
            try socket.connect("inproc://control-rate")
            var out: [String] = []
            for _ in 0..<30 {
                _ = try socket.send([Samples.bytes(#"{"command":"status"}"#)])
                guard let frames = try socket.receiveMultipart(timeoutMilliseconds: 5000) else { break }
                out.append(String(decoding: frames[0], as: UTF8.self))
            }
            return out
        }
        #expect(replies.count == 30)
        let refused = replies.filter { $0.contains("requests per second") }
        // 10 (the burst) answered, give or take what refilled while the loop ran.
        #expect(refused.count >= 15 && refused.count <= 20, "\(replies)")
        #expect(handled.value == 30 - refused.count)
        #expect(server.statistics.refused[.rateLimited] == UInt64(refused.count))
    }
}

private final class Counter: @unchecked Sendable {
    /// Guards `n`.
    private let lock = NSLock()
    private var n = 0
    func add() { lock.withLock { n += 1 } }
    var value: Int { lock.withLock { n } }
}
