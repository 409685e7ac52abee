import LocusCore
@testable import LocusFleet
import Testing

/// Issue 49, item 2: leases expire by what the reader observes (a key's revision unchanged for
/// a lease of its own clock), never by a time another machine wrote.
@Suite struct LeaseExpiryTests {
    static let farFuture = #"{"owner":"ghost","epoch":0,"expires_ms":8.9e15}"#

    @Test func aForeignMemberKeyAndAForeignPartitionLeaseStrandNothing() throws {
        let g = GroupSimulation(partitions: 16, members: ["a"])
        _ = try g.store.create("member.ghost", Array(Self.farFuture.utf8))
        _ = try g.store.create("partition.3", Array(Self.farFuture.utf8))
        _ = try g.store.create("partition.9", Array(#"{"owner":"x","epoch":-4,"expires_ms":"soon"}"#.utf8))
        // A lease and a third: the ghost's key and partition 3 are found unchanged for a lease.
        try g.settle(limit: 12)
        #expect(g.owned(by: "a") == 16)
        #expect(g.members["a"]!.epoch(of: 3, now: g.clock("a")) == 1)
    }

    @Test func aDeadServerWhoseClockRanAheadHoldsNothingPastALease() throws {
        let g = GroupSimulation(partitions: 24, members: ["a", "b", "c"])
        g.offsets = ["b": 3_600_000, "c": -3_600_000]  // an hour ahead, an hour behind
        try g.settle()
        #expect(["a", "b", "c"].map { g.owned(by: $0) } == [8, 8, 8])
        let bHad = (0..<24).filter { g.members["b"]!.owns($0, now: g.clock("b")) }
        g.stopped.insert("b")  // kill -9
        let killedAt = g.now
        var takenOverAt: Int64?
        for _ in 0..<20 {
            try g.round()
            if bHad.allSatisfy({ p in ["a", "c"].contains { g.members[$0]!.owns(p, now: g.clock($0)) } }) {
                takenOverAt = g.now
                break
            }
        }
        let took = try #require(takenOverAt, "b's partitions were not taken over")
        #expect(took - killedAt <= 2 * g.leaseMs, "taken over after \(took - killedAt) ms")
    }

    @Test func aJoiningMemberWaitsALeaseBeforeTakingAnUnrenewedPartition() throws {
        let store = MemoryLeaseStore()
        // A partition of a server that died before this one started (its member key is gone).
        _ = try store.create("partition.0", Lease(owner: "dead", epoch: 7, expiresMs: 0x7FFF_FFFF_FFFF).bytes)
        let a = PartitionMember(id: "a", partitions: 1, leaseMs: 9_000, store: store)
        #expect(try a.step(now: 0).acquired.isEmpty)
        #expect(try a.step(now: 8_999).acquired.isEmpty)
        #expect(try a.step(now: 9_000).acquired == [.init(partition: 0, epoch: 8)])
    }

    @Test func leaseObservationsJudgeByRevisionAndTheReadersClock() {
        var o = LeaseObservations(leaseMs: 100)
        #expect(o.see("k", revision: 5, now: 0) == .init(isNewRevision: true, isStale: false, becameStale: false))
        #expect(o.see("k", revision: 5, now: 99) == .init(isNewRevision: false, isStale: false, becameStale: false))
        #expect(o.see("k", revision: 5, now: 100) == .init(isNewRevision: false, isStale: true, becameStale: true))
        #expect(o.see("k", revision: 5, now: 500) == .init(isNewRevision: false, isStale: true, becameStale: false))
        #expect(o.see("k", revision: 6, now: 501) == .init(isNewRevision: true, isStale: false, becameStale: false))
        o.see("j", revision: 1, now: 0)
        o.keep(only: ["k"], prefix: "")
        #expect(o.count == 1)
    }

    @Test func impossibleExpiries() {
        let wall: Int64 = 1_760_000_000_000
        #expect(Lease(owner: "a", epoch: 1, expiresMs: wall + 10_000).isPlausible(wallMs: wall))
        #expect(Lease(owner: "", epoch: 1, expiresMs: 0).isPlausible(wallMs: wall))
        #expect(!Lease(owner: "a", epoch: 1, expiresMs: -1).isPlausible(wallMs: wall))
        #expect(!Lease(owner: "a", epoch: 1, expiresMs: 8_900_000_000_000_000).isPlausible(wallMs: wall))
        #expect(Lease(bytes: Array(#"{"owner":"a","epoch":1,"expires_ms":9.1e15}"#.utf8)) == nil)
    }
}

/// Issue 49, item 3: the position rule.
@Suite struct StreamResumeTests {
    @Test func positionsWithinPastAndBeforeTheStream() {
        #expect(StreamResume.resume(after: 0, first: 0, last: 0) == .after(0))
        #expect(StreamResume.resume(after: 10, first: 1, last: 10) == .after(10))
        #expect(StreamResume.resume(after: 4, first: 5, last: 10) == .after(4))
        // The stream was recreated with 500 messages; the position is of the old one.
        #expect(StreamResume.resume(after: 2982, first: 1, last: 500) == .pastStream(position: 2982, last: 500))
        #expect(StreamResume.resume(after: 2982, first: 1, last: 500).readAfter == 0)
        #expect(StreamResume.resume(after: 8_900_000_000_000_000, first: 0, last: 0) == .pastStream(position: 8_900_000_000_000_000, last: 0))
        // Retention removed 4...99.
        #expect(StreamResume.resume(after: 3, first: 100, last: 120) == .beforeStream(position: 3, first: 100))
        #expect(StreamResume.resume(after: 3, first: 100, last: 120).readAfter == 99)
        // Every message removed (first = last + 1): nothing was skipped for a position at the end.
        #expect(StreamResume.resume(after: 120, first: 121, last: 120) == .after(120))
        #expect(StreamResume.resume(after: UInt64.max, first: UInt64.max, last: UInt64.max) == .after(UInt64.max))
    }
}
