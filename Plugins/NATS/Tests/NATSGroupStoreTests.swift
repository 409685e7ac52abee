import Foundation
import LocusCore
import LocusFleet
import LocusNATS
@testable import LocusNATSPlugin
import LocusTestKit
import Testing

/// Issue 49, items 2–4: what a group reads from its bucket and its stream is outside bytes. A
/// foreign or stale lease strands no partition, a position the stream does not hold loses no
/// stored fix, and `start` decides where a partition with no position starts. On a real
/// nats-server, one member of 16 partitions with a one-second lease.
@Suite(.serialized) struct NATSGroupStoreTests {
    typealias Member = NATSGroupTests.Member
    let devices = (0..<100).map { "van\($0)" }

    func publish(_ c: NATSConnection, round: Int) throws {
        for d in devices {
            let body = #"{"_type":"location","lat":52.5,"lon":13.4,"tst":\#(1_700_000_000 + round),"acc":5}"#
            _ = try c.publish("locus.fixes.\(PartitionHash.partition(of: d, count: 16)).\(d)", Array(body.utf8))
        }
    }

    /// A nats-server with the fixes stream and the group's bucket, and a connection to both.
    func setUp() throws -> (NATSServer, NATSConnection, JetStreamKeyValue) {
        let server = try NATSServer(directory: temporaryPath("nats"))
        try server.start()
        let writer = try NATSConnection(NATSConnectionSettings(servers: [server.url], name: "devices"))
        try writer.ensureStream(JetStreamStreamSpec(name: "LOCUS_FIXES", subjects: ["locus.fixes.>"]))
        return (server, writer, try JetStreamKeyValue(connection: writer, bucket: "locus_group_test"))
    }

    @Test func aForeignMemberKeyAndFarFutureLeasesStrandNoPartition() async throws {
        let (server, _, bucket) = try setUp()
        let ghost = Array(#"{"owner":"ghost","epoch":0,"expires_ms":8.9e15}"#.utf8)
        _ = try bucket.create("member.ghost", ghost)
        _ = try bucket.create("partition.3", ghost)
        _ = try bucket.create("partition.5", Array("not a lease".utf8))
        let a = Member("a", server: server)
        let all = await waitUntil(timeout: 8) { a.counters.partitionsOwned == 16 }
        #expect(all, "owned \(a.counters.partitionsOwned) of 16")
        #expect(a.counters.staleMembers == 1)
        #expect(a.counters.badLeaseValues == 3)
        a.task.cancel()
        try await a.task.value
    }

    @Test func aPositionPastTheStreamIsReadFromTheStreamsFirstMessage() async throws {
        let (server, writer, bucket) = try setUp()
        for round in 0..<3 { try publish(writer, round: round) }
        // A forged position (or one of the stream before it was deleted and recreated).
        let p = PartitionHash.partition(of: "van0", count: 16)
        _ = try bucket.create("position.\(p)", Array(#"{"epoch":1,"sequence":8.9e15}"#.utf8))
        let a = Member("a", server: server) { $0.start = .all }
        let read = await waitUntil(timeout: 8) { a.counters.fixesPublished == 300 }
        #expect(read, "published \(a.counters.fixesPublished) of 300")
        #expect(try a.fixes()["van0"]?.count == 3)
        #expect(a.counters.positionsPastStream == 1)
        // Read on from there: the next position written is within the stream.
        #expect(await waitUntil(timeout: 5) {
            (try? bucket.get("position.\(p)")).flatMap { $0.flatMap { PartitionPosition(bytes: $0.value) } }.map { $0.sequence <= 300 } == true
        })
        a.task.cancel()
        try await a.task.value
    }

    @Test func aPositionBeforeTheStreamsFirstMessageIsCountedAndReadOnFromTheFirst() async throws {
        let server = try NATSServer(directory: temporaryPath("nats"))
        try server.start()
        let writer = try NATSConnection(NATSConnectionSettings(servers: [server.url], name: "devices"))
        // Messages older than a second go (retention; the duplicate window may not be longer).
        try writer.ensureStream(JetStreamStreamSpec(name: "LOCUS_FIXES", subjects: ["locus.fixes.>"], duplicateWindowSeconds: 1, maxAgeSeconds: 1))
        let bucket = try JetStreamKeyValue(connection: writer, bucket: "locus_group_test")
        try publish(writer, round: 0)
        let p = PartitionHash.partition(of: "van0", count: 16)
        _ = try bucket.create("position.\(p)", PartitionPosition(sequence: 5, epoch: 1).bytes)
        #expect(await waitUntil(timeout: 10) { (try? writer.sequences(of: "LOCUS_FIXES").first) == 101 })
        try publish(writer, round: 1)
        let a = Member("a", server: server) { $0.start = .all }
        #expect(await waitUntil(timeout: 8) { a.counters.fixesPublished == 100 }, "published \(a.counters.fixesPublished) of 100")
        #expect(try a.fixes()["van0"] == [1_700_000_001])
        #expect(a.counters.positionsBeforeStream == 1)
        #expect(a.counters.positionsPastStream == 0)
        a.task.cancel()
        try await a.task.value
    }

    @Test func startNewReadsWhatIsStoredFromWhenTheGroupFirstTakesAPartition() async throws {
        let (server, writer, _) = try setUp()
        try publish(writer, round: 0)  // history: not read with start: new
        let a = Member("a", server: server) { $0.start = .new }
        #expect(await waitUntil(timeout: 8) { a.counters.partitionsOwned == 16 })
        try publish(writer, round: 1)
        #expect(await waitUntil(timeout: 8) { a.counters.fixesPublished >= 100 })
        try await Task.sleep(for: .milliseconds(300))
        #expect(a.counters.fixesPublished == 100)
        #expect(try a.fixes().values.allSatisfy { $0 == [1_700_000_001] })
        // The start was written as the partitions' positions: a server taking them over reads
        // on from there, not from when it started.
        a.task.cancel()
        try await a.task.value
        try publish(writer, round: 2)
        let b = Member("b", server: server) { $0.start = .new }
        #expect(await waitUntil(timeout: 8) { b.counters.fixesPublished >= 100 })
        try await Task.sleep(for: .milliseconds(300))
        #expect(b.counters.fixesPublished == 100)
        #expect(try b.fixes().values.allSatisfy { $0 == [1_700_000_002] })
        b.task.cancel()
        try await b.task.value
    }
}
