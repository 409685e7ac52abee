import Foundation
import LocusCore
import Logging
import Testing
import CZeroMQ
@testable import LocusBus

/// One outside client must not be able to take the hub's memory.
@Suite("Hub limits", .serialized)
struct HubLimitsTests {
    /// Subscriptions past a connection's limit, or past the hub's total, are refused (the
    /// subscriber does not get those topics) and counted; a closed connection's are freed.
    /// Before: every subscription was honoured and none counted.
    @Test func subscriptionsPastTheLimitsAreRefusedAndCounted() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let context = ZMQContext()
        var config = HubConfiguration(publishEndpoints: [dir.endpoint("publish.sock")])
        config.limits.subscriptions = SubscriptionLimits(perClient: 100, total: 150)
        let hub = Hub(configuration: config, registry: .core, context: context, logger: quietLogger)
        try hub.start()
        defer { hub.stop() }
        let outlet = try SocketOutlet(context: context, highWaterMark: 0, logger: quietLogger)
        #expect(outlet.waitUntilReady(timeout: 5))

        // A raw XSUB sending 150 distinct subscriptions, the last one a topic it wants: past
        // its limit, but not by more than the limit again, so it stays connected.
        let greedy = try ZMQSocket(context: context, type: .xsub)
        try greedy.setOption(.linger(milliseconds: 0))
        try greedy.connect(dir.endpoint("publish.sock"))
        for i in 0..<149 { try greedy.send([[1] + Array("obs.fix.n\(i).".utf8)]) }
        try greedy.send([[1] + Array("obs.sky.wanted".utf8)])
        #expect(eventually { hub.statistics.dropped(.subscriptionLimit) == 50 }, "\(hub.statistics.dropped)")
        #expect(hub.statistics.subscriptions == 100)
        // What it got accepted works; what was refused does not.
        outlet.send(topic: "obs.fix.n5.x", body: Samples.fixBody(1, producer: "n5"))
        outlet.send(topic: "obs.sky.wanted", body: Samples.fixBody(2, producer: "wanted"))
        let first = try receive(greedy, timeout: 5)
        #expect(first.map { String(decoding: $0[0], as: UTF8.self) } == "obs.fix.n5.x")
        #expect(try greedy.receiveMultipart(timeoutMilliseconds: 300) == nil)

        // A second client fits in what the total has left (50); the rest is refused.
        let second = try ZMQSocket(context: context, type: .sub)
        try second.setOption(.linger(milliseconds: 0))
        for i in 0..<60 { try second.subscribe("obs.sky.s\(i).") }
        try second.connect(dir.endpoint("publish.sock"))
        #expect(eventually { hub.statistics.dropped(.subscriptionLimit) == 60 }, "\(hub.statistics.dropped)")
        #expect(hub.statistics.subscriptions == 150)

        // When the greedy one goes, its 100 are freed and a new client is accepted.
        greedy.close()
        #expect(eventually { hub.statistics.subscriptions == 50 }, "\(hub.statistics.subscriptions)")
        let third = try ZMQSocket(context: context, type: .sub)
        try third.setOption(.linger(milliseconds: 0))
        try third.subscribe("obs.fix.third")
        try third.connect(dir.endpoint("publish.sock"))
        var got: [[UInt8]]?
        for i in 0..<200 where got == nil {
            outlet.send(topic: "obs.fix.third", body: Samples.fixBody(i, producer: "third"))
            got = try third.receiveMultipart(timeoutMilliseconds: 20)
        }
        #expect(got != nil)
        #expect(hub.statistics.dropped(.subscriptionLimit) == 60)
        #expect(hub.statistics.subscribersCutOff == 0)
        second.close()
        third.close()
    }

    /// Long prefixes are bounded by their total length (ZeroMQ keeps about 60 bytes of memory
    /// per prefix byte), and a connection refused more bytes than its own budget is cut off.
    @Test func subscriptionBytesAreLimitedToo() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let context = ZMQContext()
        var config = HubConfiguration(publishEndpoints: [dir.endpoint("publish.sock")])
        config.limits.subscriptions = SubscriptionLimits(perClient: 1000, total: 1000, perClientBytes: 1990, totalBytes: 100_000)
        let hub = Hub(configuration: config, registry: .core, context: context, logger: quietLogger)
        try hub.start()
        defer { hub.stop() }
        let client = try ZMQSocket(context: context, type: .xsub)
        try client.setOption(.linger(milliseconds: 0))
        try client.connect(dir.endpoint("publish.sock"))
        let long = String(repeating: "x", count: 190)
        func prefix(_ i: Int) -> [UInt8] { [1] + Array("obs.fix.\(long)\(i)".utf8) } // 199 bytes for i < 10, then 200
        // 10 × 199 bytes fit the 1,990.
        for i in 0..<10 { try client.send([prefix(i)]) }
        #expect(eventually { hub.statistics.subscriptions == 10 }, "\(hub.statistics.subscriptions)")
        // The next 10 do not, and the 10th refusal (2,000 bytes refused, more than 1,990) cuts
        // the connection off, which frees its 10.
        for i in 10..<20 { try client.send([prefix(i)]) }
        #expect(eventually { hub.statistics.subscribersCutOff == 1 && hub.statistics.subscriptions == 0 })
        #expect(hub.statistics.dropped(.subscriptionLimit) == 10)
        client.close()
    }

    /// ZeroMQ keeps every subscription message a connection sends, refused ones too, until the
    /// connection closes; a connection that keeps subscribing past its limit is therefore cut
    /// off, and the hub keeps serving everyone else. Before: a client sending 100,000 distinct
    /// subscriptions stayed connected (and one sending a million took the daemon to 3.75 GB).
    @Test func aSubscriberFloodingSubscriptionsIsDisconnected() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let context = ZMQContext()
        var config = HubConfiguration(publishEndpoints: [dir.endpoint("publish.sock"), "tcp://127.0.0.1:*"])
        config.limits.subscriptions = SubscriptionLimits(perClient: 100, total: 1000)
        let hub = Hub(configuration: config, registry: .core, context: context, logger: quietLogger)
        try hub.start()
        defer { hub.stop() }
        let outlet = try SocketOutlet(context: context, highWaterMark: 0, logger: quietLogger)
        #expect(outlet.waitUntilReady(timeout: 5))
        let tcp = try #require(hub.boundEndpoints.first { $0.hasPrefix("tcp://") })

        for endpoint in [dir.endpoint("publish.sock"), tcp] {
            let before = hub.statistics.subscribersCutOff
            let flood = try ZMQSocket(context: context, type: .xsub)
            try flood.setOption(.linger(milliseconds: 0))
            try flood.setOption(.sendHighWaterMark(0))
            // Its own monitor says when the hub closes the connection.
            let monitorEndpoint = "inproc://flood-monitor-\(UUID().uuidString)"
            #expect(zmq_socket_monitor(try flood.liveHandle("monitor"), monitorEndpoint, ZMQ_EVENT_DISCONNECTED) == 0)
            let events = try ZMQSocket(context: context, type: .pair)
            try events.setOption(.linger(milliseconds: 0))
            try events.connect(monitorEndpoint)
            try flood.connect(endpoint)
            for i in 0..<100_000 { try flood.send([[1] + Array("obs.fix.flood\(i).".utf8)]) }
            #expect(try receive(events, timeout: 10) != nil, "\(endpoint): the hub never closed the flooding connection")
            #expect(eventually { hub.statistics.subscribersCutOff > before }, "\(endpoint)")
            #expect(hub.statistics.subscriptions <= 100)
            zmq_socket_monitor(try flood.liveHandle("monitor"), nil, 0)
            events.close()
            flood.close()
        }
        // Everyone else is served as before.
        #expect(eventually { hub.statistics.subscriptions == 0 }, "\(hub.statistics.subscriptions)")
        let polite = try ZMQSocket(context: context, type: .sub)
        try polite.setOption(.linger(milliseconds: 0))
        try polite.subscribe("obs.fix.polite")
        try polite.connect(tcp)
        var got: [[UInt8]]?
        for i in 0..<200 where got == nil {
            outlet.send(topic: "obs.fix.polite", body: Samples.fixBody(i, producer: "polite"))
            got = try polite.receiveMultipart(timeoutMilliseconds: 20)
        }
        #expect(got != nil)
        polite.close()
    }

    /// Before: a 10 MB message from an outside publisher made ZeroMQ drop the connection, and
    /// nothing counted it.
    @Test func aTenMegabyteIngestMessageIsCountedAsTooLarge() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let context = ZMQContext()
        let config = HubConfiguration(ingestEndpoints: [dir.endpoint("ingest.sock")], publishEndpoints: [dir.endpoint("publish.sock")])
        let hub = Hub(configuration: config, registry: .core, context: context, logger: quietLogger)
        try hub.start()
        defer { hub.stop() }
        let sub = try ZMQSocket(context: context, type: .sub)
        try sub.setOption(.linger(milliseconds: 0))
        try sub.subscribe("obs.")
        try sub.connect(dir.endpoint("publish.sock"))
        let pub = try ZMQSocket(context: context, type: .xpub)
        try pub.setOption(.linger(milliseconds: 2000))
        try pub.connect(dir.endpoint("ingest.sock"))
        #expect(try receive(pub, timeout: 5) != nil, "the hub's subscription")
        // The subscriber's own subscription reaches the hub asynchronously: probe until through.
        var through = false
        for i in 0..<300 where !through {
            try pub.send(topic: "obs.fix.probe", body: Samples.fixBody(i, producer: "probe"))
            through = try sub.receiveMultipart(timeoutMilliseconds: 10) != nil
        }
        #expect(through)
        while try sub.receiveMultipart(timeoutMilliseconds: 50) != nil {}
        try pub.send(topic: "obs.fix.big", body: [UInt8](repeating: 0x20, count: 10_000_000))
        try pub.send(topic: "obs.fix.after", body: Samples.fixBody(1, producer: "after"))
        #expect(eventually(timeout: 10) { hub.statistics.dropped(.tooLarge) == 1 }, "\(hub.statistics.dropped)")
        // The same connection still works: the message was dropped, not the publisher.
        let next = try receive(sub, timeout: 5)
        #expect(next.map { String(decoding: $0[0], as: UTF8.self) } == "obs.fix.after")
    }
}
