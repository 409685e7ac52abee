import Foundation
import LocusCore
import Testing
@testable import LocusBus

/// `hub.ingest_rate_per_client`: an outside publisher's connection past its rate loses the
/// rest, counted as rate_limit; in-process publishers are not limited.
struct IngestRateLimitTests {
    @Test func anOutsidePublisherPastItsRateIsCounted() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let context = ZMQContext()
        var configuration = HubConfiguration(ingestEndpoints: [dir.endpoint("in.sock")])
        configuration.limits.ingestRatePerClient = 50
        let hub = Hub(configuration: configuration, registry: .core, context: context, logger: quietLogger)
        try hub.start()
        defer { hub.stop() }
        let pub = try ZMQSocket(context: context, type: .xpub)
        defer { pub.close() }
        try pub.setOption(.linger(milliseconds: 1000))
        try pub.connect(dir.endpoint("in.sock"))
        #expect(try pub.receiveMultipart(timeoutMilliseconds: 5000) == [[1]])  // the hub's subscribe-all
        let started = Date()
        for i in 1...1000 { _ = try pub.send(topic: "obs.fix.phone", body: Samples.fixBody(i, producer: "phone")) }
        // In process: not limited.
        let inside = try ZMQSocket(context: context, type: .pub)
        defer { inside.close() }
        try inside.connect(HubConfiguration.inprocIngest)
        usleep(100_000)
        for i in 1...300 { _ = try inside.send(topic: "obs.fix.inside", body: Samples.fixBody(i, producer: "inside")) }
        #expect(eventually { hub.statistics.forwarded + hub.statistics.dropped(.rateLimit) == 1300 })
        let elapsed = Date().timeIntervalSince(started)
        let limited = hub.statistics.dropped(.rateLimit)
        // A burst of 100 and 50 per second while it ran; the inside publisher's 300 all passed.
        #expect(limited >= UInt64(1000 - 100 - Int(50 * elapsed) - 5), "\(limited) limited in \(elapsed) s")
        #expect(hub.statistics.forwarded >= 300 + 100)
    }
}
