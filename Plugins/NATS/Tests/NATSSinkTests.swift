import Foundation
import LocusCore
import LocusNATS
@testable import LocusNATSPlugin
import LocusTestKit
import Testing

/// The `nats` sink against a real nats-server: events land in the stream under their topic, and
/// the same events sent again by another server (other sequence numbers) are stored once.
@Suite(.serialized) struct NATSSinkTests {
    func sink(_ server: NATSServer) -> NATSSink {
        let config = NATSSinkConfiguration.with { $0.server.servers = [server.url] }
        return NATSSink(configuration: config, connection: NATSConnectionSettings(servers: [server.url], name: "sink-test"))
    }

    func events(firstSeq: UInt64) -> [BusMessage] {
        (0..<20).map { i -> BusMessage in
            var m = fixMessage(speed: Double(i), at: 1000 + Double(i), seq: firstSeq + UInt64(i))
            m.topic = i % 5 == 0 ? "obs.fix.gps0" : "location.update.van\(i % 3)"
            return m
        }
    }

    func run(_ sink: NATSSink, _ messages: [BusMessage]) async throws {
        let (stream, c) = AsyncStream<BusMessage>.makeStream()
        for m in messages { c.yield(m) }
        c.finish()
        try await sink.run(messages: stream, context: PluginHarness(id: "out").context)
    }

    @Test func eventsAreStoredOnceWhateverServerSendsThem() async throws {
        let server = try NATSServer(directory: temporaryPath("nats"))
        try server.start()
        let first = sink(server), second = sink(server)
        try await run(first, events(firstSeq: 1))
        // A second server that re-derived the same events after a takeover.
        try await run(second, events(firstSeq: 5000))
        #expect(first.statistics.counters.published == 16)
        #expect(second.statistics.counters.published == 0)
        #expect(second.statistics.counters.duplicates == 16)
        let reader = try NATSConnection(NATSConnectionSettings(servers: [server.url], name: "reader"))
        let stored = try JetStreamPullConsumer(connection: reader, stream: "LOCUS_EVENTS", filter: "locus.events.>", start: .all)
            .fetch(batch: 100, timeoutMs: 1000)
        #expect(stored.count == 16)
        #expect(stored.first?.subject == "locus.events.location.update.van1")
        // Raw observations are not sent (exclude's default).
        #expect(!stored.contains { $0.subject.contains("obs.") })
        let envelope = try EnvelopeCodec.decode(stored[0].payload, registry: .core)
        #expect(envelope.seq == 2)
    }

    @Test func eventsWaitWhileNATSIsAwayAndGoWhenItComes() async throws {
        let server = try NATSServer(directory: temporaryPath("nats"))
        let s = sink(server)
        let harness = PluginHarness(id: "out")
        let (stream, c) = AsyncStream<BusMessage>.makeStream()
        let task = Task { try await s.run(messages: stream, context: harness.context) }
        for m in events(firstSeq: 1) { c.yield(m) }
        #expect(await waitUntil(timeout: 5) { s.statistics.counters.connectFailures >= 1 })
        #expect(s.statistics.counters.published == 0)
        try server.start()
        #expect(await waitUntil(timeout: 20) { s.statistics.counters.published == 16 })
        c.finish()
        try await task.value
        #expect(harness.statuses.states.contains(.disconnected))
        #expect(harness.statuses.states.last == .connected)
    }
}
