import LocusCore
import LocusNATS
import LocusTestKit
import Testing

/// Streams, publishes with message ids, and pull consumers starting after a position, on a real
/// nats-server.
@Suite(.serialized) struct JetStreamStreamTests {
    @Test func aRepeatedMessageIdIsStoredOnce() throws {
        let nats = try NATSTestServer()
        let connection = try nats.connect()
        try connection.ensureStream(JetStreamStreamSpec(name: "EVENTS", subjects: ["events.>"]))
        try connection.ensureStream(JetStreamStreamSpec(name: "EVENTS", subjects: ["events.>"]))  // exists: fine
        let first = try connection.publish("events.a", Array("one".utf8), messageId: "svc/dev/1")
        let again = try connection.publish("events.a", Array("one".utf8), messageId: "svc/dev/1")
        let other = try connection.publish("events.a", Array("two".utf8), messageId: "svc/dev/2")
        #expect(!first.duplicate)
        #expect(again.duplicate)
        #expect(again.sequence == first.sequence)
        #expect(other.sequence == first.sequence + 1)
        let consumer = try JetStreamPullConsumer(connection: connection, stream: "EVENTS", filter: "events.>", after: 0)
        let read = try consumer.fetch(batch: 10, timeoutMs: 1000)
        #expect(read.map { String(decoding: $0.payload, as: UTF8.self) } == ["one", "two"])
    }

    @Test func aConsumerStartsAfterTheGivenSequenceAndFiltersItsPartition() throws {
        let nats = try NATSTestServer()
        let connection = try nats.connect()
        try connection.ensureStream(JetStreamStreamSpec(name: "FIXES", subjects: ["fixes.>"]))
        for i in 1...10 { _ = try connection.publish("fixes.\(i % 2).dev\(i)", Array("\(i)".utf8)) }
        let all = try JetStreamPullConsumer(connection: connection, stream: "FIXES", filter: "fixes.1.>", after: 0)
        let odd = try all.fetch(batch: 100, timeoutMs: 1000)
        #expect(odd.map(\.subject) == ["fixes.1.dev1", "fixes.1.dev3", "fixes.1.dev5", "fixes.1.dev7", "fixes.1.dev9"])
        #expect(odd.map(\.sequence) == [1, 3, 5, 7, 9])
        #expect(odd.first?.pending == 4)
        #expect(odd.last?.pending == 0)
        let resumed = try JetStreamPullConsumer(connection: connection, stream: "FIXES", filter: "fixes.1.>", after: 5)
        #expect(try resumed.fetch(batch: 100, timeoutMs: 1000).map(\.sequence) == [7, 9])
        #expect(try resumed.fetch(batch: 100, timeoutMs: 200).isEmpty)
    }

    @Test func aServerThatIsNotThereIsAnErrorNotAHang() throws {
        let port = try LoopbackPort.free()
        #expect(throws: NATSError.self) {
            _ = try NATSConnection(NATSConnectionSettings(servers: ["nats://127.0.0.1:\(port)"], name: "t", timeoutMs: 500))
        }
    }

    /// A reader of many partitions asks each for what it holds without waiting (a short
    /// expiry): while a writer publishes, every message is read exactly once, in order per
    /// partition — a request that expires loses nothing.
    @Test func readingManyPartitionsWhileTheyAreWrittenLosesAndRepeatsNothing() throws {
        let nats = try NATSTestServer()
        let reader = try nats.connect("reader")
        try reader.ensureStream(JetStreamStreamSpec(name: "FIXES", subjects: ["fixes.>"]))
        let consumers = try (0..<16).map { try JetStreamPullConsumer(connection: reader, stream: "FIXES", filter: "fixes.\($0).>", start: .all) }
        let writer = try nats.connect("writer")
        let total = 4000
        let done = ThreadCompletion()
        startThread(named: "writer", owning: writer) { writer in
            do {
                for i in 0..<total { _ = try writer.publish("fixes.\(i % 16).dev\(i % 50)", Array("\(i)".utf8)) }
                done.finish(nil)
            } catch { done.finish(error) }
        }
        var seen: [[UInt64]] = Array(repeating: [], count: 16)
        let deadline = ContinuousClock.now + .seconds(60)
        while seen.map(\.count).reduce(0, +) < total, ContinuousClock.now < deadline {
            for (p, c) in consumers.enumerated() { seen[p] += try c.fetchAvailable(batch: 64).map(\.sequence) }
        }
        #expect(seen.map(\.count).reduce(0, +) == total)
        for p in 0..<16 {
            #expect(seen[p] == seen[p].sorted() && Set(seen[p]).count == seen[p].count, "partition \(p)")
            #expect(seen[p].count == total / 16)
        }
        #expect(Set(seen.joined()).count == total)
    }
}

