import Foundation
import LocusCore
import Logging
import Testing
@testable import LocusBus

@Suite("Hub")
struct HubTests {
    /// Parses the seq of a received envelope body.
    static func seq(_ body: [UInt8]) -> UInt64? { try? EnvelopeCodec.decode(body, registry: .core).seq }

    @Test func forwardsValidMessagesInOrderAndCountsEachKindOfDrop() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let context = ZMQContext()
        let capture = LogCapture()
        let config = HubConfiguration(ingestEndpoints: [dir.endpoint("ingest.sock")], publishEndpoints: [dir.endpoint("publish.sock")], limits: .with { $0.maxMessageBytes = 4096 })
        let hub = Hub(configuration: config, registry: .core, context: context, logger: capture.logger)
        try hub.start()

        // An external subscriber over ipc, synchronised with a token.
        let sub = try ZMQSocket(context: context, type: .sub)
        try sub.setOption(.linger(milliseconds: 0))
        try sub.subscribe("obs.")
        try sub.subscribe("test.probe")
        let token = SyncToken.make()
        try sub.subscribe(token)
        try sub.connect(dir.endpoint("publish.sock"))
        #expect(hub.waitForSubscriber(token: token, timeout: 5))
        #expect(!hub.waitForSubscriber(token: SyncToken.make(), timeout: 0.05))

        // The in-process publisher, and an external raw PUB over ipc.
        let outlet = try SocketOutlet(context: context, highWaterMark: 0, logger: quietLogger)
        #expect(outlet.waitUntilReady(timeout: 5))
        let pub = try #require(try probedOutsidePublisher(context, ingest: dir.endpoint("ingest.sock"), heardBy: sub, probeTopic: "test.probe"))

        for i in 1...3 { outlet.send(topic: "obs.fix.a", body: Samples.fixBody(i, producer: "a")) }
        try pub.send(topic: "obs.fix.b", body: Samples.fixBody(1, producer: "b"))
        // One of each kind of bad message, from the external publisher.
        let header = #""type":"obs.fix","version":1,"producer":"b","seq":9,"time":"2024-05-17T08:00:00.000Z""#
        try pub.send([Samples.fixBody(9)])                                                    // one frame
        try pub.send([Samples.bytes("obs.fix.b"), Samples.fixBody(9), [1]])                   // three frames
        try pub.send(topic: "OBS.fix", body: Samples.fixBody(9))                                // bad topic
        try pub.send(topic: "obs.fix.b", body: Samples.bytes("{\"lat\":52.5213,"))              // not JSON
        try pub.send(topic: "obs.fix.b", body: Samples.bytes(#"{"type":"obs.zzz","version":1,"producer":"b","seq":9,"time":"2024-05-17T08:00:00.000Z","payload":{}}"#))
        try pub.send(topic: "obs.fix.b", body: Samples.bytes("{\(header)}"))                    // missing payload
        try pub.send(topic: "obs.fix.b", body: Samples.bytes("{\(header),\"payload\":{\"pad\":\"" + String(repeating: "x", count: 5000) + "\"}}"))
        try pub.send(topic: "obs.fix.b", body: Samples.fixBody(2, producer: "b"))
        try pub.send(topic: "obs.fix.b", body: Samples.fixBody(3, producer: "b"))
        outlet.send(topic: "obs.fix.a", body: Samples.fixBody(4, producer: "a"))

        var fromA: [UInt64] = [], fromB: [UInt64] = []
        while fromA.count + fromB.count < 7, let frames = try receive(sub, timeout: 5) {
            #expect(frames.count == 2)
            let topic = String(decoding: frames[0], as: UTF8.self)
            if topic == "obs.fix.a" { fromA.append(Self.seq(frames[1]) ?? 0) }
            else if topic == "obs.fix.b" { fromB.append(Self.seq(frames[1]) ?? 0) }
            else { Issue.record("unexpected topic \(topic)") }
        }
        #expect(fromA == [1, 2, 3, 4])
        #expect(fromB == [1, 2, 3])
        #expect(try sub.receiveMultipart(timeoutMilliseconds: 100) == nil)

        let expected: [String: UInt64] = ["wrong_frame_count": 2, "bad_topic": 1, "not_json": 1, "unknown_type": 1,
                                          "missing_field": 1, "too_large": 1, "wrong_field_type": 0, "bad_payload": 0,
                                          "subscription_limit": 0, "reserved": 0, "rate_limit": 0]
        #expect(eventually { hub.statistics.dropped == expected })
        #expect(hub.statistics.dropped(.wrongFrameCount) == 2)
        #expect(hub.statistics.droppedTotal == 7)
        #expect(eventually { hub.statistics.forwarded >= 7 })

        // Each reason logged once, at warning level, without the body's coordinates.
        let warnings = capture.records.filter { $0.level == .warning }
        #expect(warnings.count == 6)
        #expect(Set(warnings.map { $0.metadata }).count == 6)
        #expect(!capture.records.contains { ($0.message + $0.metadata).contains("52.52") })

        outlet.close()
        pub.close()
        sub.close()
        hub.stop()
        #expect(!FileManager.default.fileExists(atPath: dir.file("ingest.sock")))
        #expect(!FileManager.default.fileExists(atPath: dir.file("publish.sock")))
    }

    @Test func bindErrorsAreThrownByStartAndNameTheEndpoint() throws {
        let dir = TempDirectory()
        defer { dir.remove() }
        let context = ZMQContext()
        let config = HubConfiguration(publishEndpoints: [dir.endpoint("publish.sock")])
        let first = Hub(configuration: config, registry: .core, context: context, logger: quietLogger)
        try first.start()
        // Another context, as another process would have: the ipc file is taken.
        let other = Hub(configuration: config, registry: .core, context: ZMQContext(), logger: quietLogger)
        let error = #expect(throws: ZMQError.self) { try other.start() }
        #expect(error?.endpoint == dir.endpoint("publish.sock"))
        #expect(error?.description.hasPrefix("cannot bind \(dir.endpoint("publish.sock")): Address already in use") == true)
        // The failed hub must not have removed the running hub's socket file.
        #expect(IPCSocketFile.isListening(path: dir.file("publish.sock")))
        // Same context: the inproc names are taken too.
        let third = Hub(configuration: HubConfiguration(), registry: .core, context: context, logger: quietLogger)
        #expect(throws: ZMQError.self) { try third.start() }
        #expect(throws: LocusBusError.self) { try first.start() }
        first.stop()
        first.stop()
        #expect(!FileManager.default.fileExists(atPath: dir.file("publish.sock")))
        #expect(throws: EndpointError.self) {
            try Hub(configuration: HubConfiguration(ingestEndpoints: ["tcp://nowhere"]), registry: .core, context: context, logger: quietLogger).start()
        }
    }

    @Test func externalPublishersAreHeardOverTCP() async throws {
        let context = ZMQContext()
        let hub = Hub(configuration: HubConfiguration(ingestEndpoints: ["tcp://127.0.0.1:*"]), registry: .core, context: context, logger: quietLogger)
        try hub.start()
        defer { hub.stop() }
        let ingest = try #require(hub.boundEndpoints.first { $0.hasPrefix("tcp://") })
        let subscription = SocketSubscription(context: context, prefixes: ["obs.fix."], registry: .core, logger: quietLogger)
        try subscription.start(hub: hub)
        // An XPUB publisher sees the hub's subscribe-all arrive, then sends.
        let pub = try ZMQSocket(context: context, type: .xpub)
        try pub.setOption(.linger(milliseconds: 1000))
        try pub.connect(ingest)
        let subscribeAll = try receive(pub)
        #expect(subscribeAll == [[1]])
        try pub.send(topic: "obs.fix.tcp", body: Samples.fixBody(5, producer: "tcp"))
        let message = try #require(await collect(subscription.messages, count: 1).first)
        #expect(message.topic == "obs.fix.tcp")
        #expect(message.envelope.seq == 5)
        pub.close()
        subscription.stop(drain: false)
    }

    @Test func dropSummariesAreRateLimited() {
        let capture = LogCapture()
        var reporter = DropReporter(logger: capture.logger, intervalSeconds: 0.05)
        let bad = MessageRejection(reason: .badTopic, detail: "x")
        for _ in 0..<5 { reporter.record(bad) }
        reporter.record(MessageRejection(reason: .notJSON, detail: "y"))
        reporter.tick()
        #expect(capture.records.count == 2) // the first of each reason, at once
        usleep(60_000)
        reporter.tick()
        reporter.tick()
        #expect(capture.records.count == 3)
        #expect(capture.records.last?.message == "hub dropped 4 more invalid messages")
        #expect(capture.records.last?.metadata == "bad_topic=4")
    }
}

/// The first `count` elements of `stream`, or fewer if `timeout` seconds pass first (which
/// finishes the stream: a timed-out test has failed anyway).
func collect(_ stream: AsyncStream<BusMessage>, count: Int, timeout: Double = 5) async -> [BusMessage] {
    let collected = CollectedMessages()
    await withTaskGroup(of: Void.self) { group in
        group.addTask {
            for await m in stream {
                if collected.append(m) >= count { break }
            }
        }
        group.addTask { try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9)) }
        await group.next()
        group.cancelAll()
    }
    return collected.all
}

final class CollectedMessages: @unchecked Sendable {
    /// Guards `items`.
    private let lock = NSLock()
    private var items: [BusMessage] = []
    func append(_ m: BusMessage) -> Int { lock.lock(); defer { lock.unlock() }; items.append(m); return items.count }
    var all: [BusMessage] { lock.lock(); defer { lock.unlock() }; return items }
}
