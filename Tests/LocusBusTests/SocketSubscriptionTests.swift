import Foundation
import LocusCore
import Testing
@testable import LocusBus

@Suite("In-process publisher and subscriber")
struct SocketSubscriptionTests {
    @Test func deliversDecodedMessagesForItsPrefixesOnly() async throws {
        let context = ZMQContext()
        let hub = Hub(configuration: HubConfiguration(), registry: .core, context: context, logger: quietLogger)
        try hub.start()
        defer { hub.stop() }
        let subscription = SocketSubscription(context: context, prefixes: ["obs.fix."], registry: .core, logger: quietLogger)
        try subscription.start(hub: hub) // returns once the hub has the subscription
        let outlet = try SocketOutlet(context: context, logger: quietLogger)
        let publisher = EventPublisher(producer: "gps0", outlet: outlet)
        publisher.publish(ClockTick(basis: .wall, interval: 1), topic: "clock.tick", time: Samples.time)
        for i in 1...3 { publisher.publish(Samples.fix(i), topic: "obs.fix.gps0", time: Samples.time.adding(seconds: Double(i))) }
        let messages = await collect(subscription.messages, count: 3)
        #expect(messages.map(\.topic) == ["obs.fix.gps0", "obs.fix.gps0", "obs.fix.gps0"])
        #expect(messages.map(\.envelope.seq) == [2, 3, 4])
        #expect(messages.map(\.envelope.topicSeq) == [1, 2, 3])
        #expect(messages.first?.payload(Fix.self) == Samples.fix(1))
        #expect(messages.first?.envelope.producer == "gps0")
        #expect(messages.first?.body == EnvelopeCodec.encode(Samples.fix(1), producer: "gps0", seq: 2, topicSeq: 1,
                                                                  time: Samples.time.adding(seconds: 1)))
        outlet.close()
        subscription.stop(drain: false)
        #expect(subscription.statistics.delivered == 3)
    }

    @Test func drainingStopDeliversEverythingAlreadySent() async throws {
        let context = ZMQContext()
        let hub = Hub(configuration: HubConfiguration(), registry: .core, context: context, logger: quietLogger)
        try hub.start()
        defer { hub.stop() }
        let subscription = SocketSubscription(context: context, prefixes: [""], registry: .core, logger: quietLogger)
        try subscription.start(hub: hub)
        let outlet = try SocketOutlet(context: context, highWaterMark: 0, logger: quietLogger)
        let n = 5000
        for i in 1...n { outlet.send(topic: "obs.fix.gps0", body: Samples.fixBody(i)) }
        outlet.close(drainTimeout: 5) // everything handed to the hub
        subscription.stop(drain: true)
        var seqs: [UInt64] = []
        for await m in subscription.messages { seqs.append(m.envelope.seq) }
        #expect(seqs.count == n)
        #expect(seqs == (1...UInt64(n)).map { $0 })
        #expect(outlet.sentCount == UInt64(n))
        #expect(outlet.droppedCount == 0)
    }

    @Test func skipsAndCountsMessagesThatDoNotDecode() async throws {
        let context = ZMQContext()
        // Without payload decoding the hub forwards a well-formed envelope whose fix lacks "source".
        let hub = Hub(configuration: HubConfiguration(), registry: .core, context: context, logger: quietLogger)
        try hub.start()
        defer { hub.stop() }
        let subscription = SocketSubscription(context: context, prefixes: ["obs."], registry: .core, logger: quietLogger)
        try subscription.start(hub: hub)
        let outlet = try SocketOutlet(context: context, logger: quietLogger)
        outlet.send(topic: "obs.fix.x", body: Samples.bytes(#"{"type":"obs.fix","version":1,"producer":"x","seq":1,"time":"2024-05-17T08:00:00Z","payload":{"mode":"none"}}"#))
        outlet.send(topic: "obs.fix.x", body: Samples.fixBody(2, producer: "x"))
        let messages = await collect(subscription.messages, count: 1)
        #expect(messages.map(\.envelope.seq) == [2])
        #expect(subscription.statistics.undecodable == 1)
        outlet.close()
        subscription.stop(drain: false)
    }

    @Test func startFailsClearlyWhenTheHubNeverSeesTheSubscription() throws {
        let context = ZMQContext()
        let hub = Hub(configuration: HubConfiguration(), registry: .core, context: context, logger: quietLogger) // not started
        let subscription = SocketSubscription(context: context, prefixes: ["obs."], registry: .core, logger: quietLogger)
        let error = #expect(throws: LocusBusError.self) { try subscription.start(hub: hub, timeout: 0.2) }
        #expect(error?.description == "the hub did not see the subscription at inproc://locus-publish within 0.2 s")
        let bad = SocketSubscription(context: context, prefixes: ["Obs"], registry: .core, logger: quietLogger)
        #expect(throws: LocusBusError.self) { try bad.start(hub: nil) }
    }

    @Test func outletSendsFromManyTasksKeepingEachTasksOrder() async throws {
        let context = ZMQContext()
        let hub = Hub(configuration: HubConfiguration(), registry: .core, context: context, logger: quietLogger)
        try hub.start()
        defer { hub.stop() }
        let subscription = SocketSubscription(context: context, prefixes: ["obs.fix."], registry: .core, logger: quietLogger)
        try subscription.start(hub: hub)
        let outlet = try SocketOutlet(context: context, maxQueued: 16, logger: quietLogger) // tiny queue: senders block
        await withTaskGroup(of: Void.self) { group in
            for producer in 0..<4 {
                group.addTask {
                    for i in 1...250 { outlet.send(topic: "obs.fix.p\(producer)", body: Samples.fixBody(i, producer: "p\(producer)")) }
                }
            }
        }
        let messages = await collect(subscription.messages, count: 1000)
        #expect(messages.count == 1000)
        for producer in 0..<4 {
            let seqs = messages.filter { $0.envelope.producer == "p\(producer)" }.map(\.envelope.seq)
            #expect(seqs == (1...250).map { UInt64($0) })
        }
        outlet.close()
        outlet.send(topic: "obs.fix.late", body: Samples.fixBody(1))
        #expect(outlet.droppedCount == 1)
        subscription.stop(drain: false)
    }
}

@Suite("In-process publisher without a hub")
struct SocketOutletShutdownTests {
    @Test func sendNeverBlocksOnceTheContextIsShutDown() throws {
        let context = ZMQContext()
        let outlet = try SocketOutlet(context: context, subscriptionTimeout: 10, maxQueued: 4, logger: quietLogger)
        #expect(!outlet.waitUntilReady(timeout: 0.05)) // no hub: still waiting for one
        context.shutdown() // the outlet's thread sees ETERM and closes its socket
        for i in 0..<100 { outlet.send(topic: "obs.fix.gps0", body: Samples.fixBody(i)) } // must not block
        #expect(outlet.droppedCount == 100)
        #expect(outlet.sentCount == 0)
        outlet.close()
    }
}
