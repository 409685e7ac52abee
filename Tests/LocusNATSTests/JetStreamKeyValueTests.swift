import Foundation
import LocusCore
import LocusFleet
import LocusNATS
import LocusTestKit
import Testing

/// The partition leases' store on a real JetStream key-value bucket: compare-and-set as the
/// `LeaseStore` contract says (never overwrite), and a group of members on it.
@Suite(.serialized) struct JetStreamKeyValueTests {
    @Test func conditionalWritesConflictInsteadOfOverwriting() throws {
        let nats = try NATSTestServer()
        let store = try JetStreamKeyValue(connection: try nats.connect(), bucket: "leases")
        #expect(try store.get("partition.1") == nil)
        guard case .written(let r1) = try store.create("partition.1", Array("a".utf8)) else { Issue.record("create"); return }
        #expect(try store.create("partition.1", Array("b".utf8)) == .conflict)
        #expect(try store.get("partition.1")?.value == Array("a".utf8))
        #expect(try store.update("partition.1", Array("c".utf8), expected: r1 + 5) == .conflict)
        guard case .written(let r2) = try store.update("partition.1", Array("c".utf8), expected: r1) else { Issue.record("update"); return }
        #expect(r2 > r1)
        #expect(try store.update("partition.1", Array("d".utf8), expected: r1) == .conflict)
        #expect(try store.get("partition.1")?.value == Array("c".utf8))
        #expect(try store.get("partition.1")?.revision == r2)
        #expect(try store.delete("partition.1", expected: r1) == .conflict)
        guard case .written = try store.delete("partition.1", expected: r2) else { Issue.record("delete"); return }
        #expect(try store.get("partition.1") == nil)
        // A deleted key can be created again (its delete marker is its last message).
        guard case .written = try store.create("partition.1", Array("e".utf8)) else { Issue.record("re-create"); return }
        #expect(try store.create("partition.1", Array("f".utf8)) == .conflict)
        _ = try store.create("member.x", Array("m".utf8))
        #expect(try store.list(prefix: "partition.").map(\.key) == ["partition.1"])
        #expect(try store.list(prefix: "").map(\.key) == ["member.x", "partition.1"])
    }

    @Test func twoConnectionsRacingForOneKeyGetOneWinner() throws {
        let nats = try NATSTestServer()
        let a = try JetStreamKeyValue(connection: try nats.connect("a"), bucket: "leases")
        let b = try JetStreamKeyValue(connection: try nats.connect("b"), bucket: "leases")
        var wins = 0
        for p in 0..<20 {
            let key = "partition.\(p)"
            if case .written = try a.create(key, Array("a".utf8)) { wins += 1 }
            if case .written = try b.create(key, Array("b".utf8)) { wins += 1 }
            let seen = try a.get(key)!
            if case .written = try b.update(key, Array("b".utf8), expected: seen.revision) { wins += 1 }
            if case .written = try a.update(key, Array("a".utf8), expected: seen.revision) { wins += 1 }
        }
        #expect(wins == 40)
    }

    /// Three members on one real bucket, a one-second lease, stepped on the wall clock: they settle
    /// to fair shares with never two owners of a partition, and when one stops stepping (as a
    /// killed server does) the other two own all partitions within two leases.
    @Test func aGroupSettlesAndTakesOverOnARealBucket() throws {
        let nats = try NATSTestServer()
        let leaseMs: Int64 = 1000
        let ids = ["a", "b", "c"]
        var members: [String: PartitionMember] = [:]
        for id in ids {
            members[id] = PartitionMember(id: id, partitions: 16, leaseMs: leaseMs,
                                          store: try JetStreamKeyValue(connection: try nats.connect(id), bucket: "group"))
        }
        func nowMs() -> Int64 { Int64(Date().timeIntervalSince1970 * 1000) }
        func round(_ running: [String]) throws {
            for id in running {
                let changes = try members[id]!.step(now: nowMs())
                for p in changes.releasing { _ = try members[id]!.release(p) }
                let now = nowMs()
                for p in 0..<16 {
                    let owners = ids.filter { members[$0]!.owns(p, now: now) }
                    #expect(owners.count <= 1, "partition \(p): \(owners)")
                }
            }
            Thread.sleep(forTimeInterval: Double(leaseMs) / 3000)
        }
        func shares(_ running: [String]) -> [Int] {
            let now = nowMs()
            return running.map { id in (0..<16).filter { members[id]!.owns($0, now: now) }.count }
        }
        var settled = false
        for _ in 0..<15 {
            try round(ids)
            let s = shares(ids)
            if s.reduce(0, +) == 16, s.max()! - s.min()! <= 1 { settled = true; break }
        }
        #expect(settled, "shares \(shares(ids))")
        let stoppedAt = Date()
        var takenOver: Double?
        for _ in 0..<15 {
            try round(["a", "c"])
            if shares(["a", "c"]).reduce(0, +) == 16 { takenOver = Date().timeIntervalSince(stoppedAt); break }
        }
        let seconds = try #require(takenOver, "shares \(shares(["a", "c"]))")
        #expect(seconds <= 2 * Double(leaseMs) / 1000 + 0.5)
    }
}
