import LocusCore
import LocusFleet
import Testing

/// Issue 49, item 2: values in the group's bucket that are not leases, or name an impossible
/// expiry, are counted once per value written; other members' keys left unchanged for a lease
/// are counted once per revision.
@Suite struct LeaseBadValueTests {
    @Test func badValuesAreCountedOncePerRevision() throws {
        let store = MemoryLeaseStore()
        let wall: Int64 = 1_760_000_000_000
        let a = PartitionMember(id: "a", partitions: 4, leaseMs: 10_000, store: store, wallClockMs: { wall })
        _ = try store.create("member.ghost", Array(LeaseExpiryTests.farFuture.utf8))
        _ = try store.create("member.old", Lease(owner: "old", epoch: 0, expiresMs: -5).bytes)
        _ = try store.create("member.fine", Lease(owner: "fine", epoch: 0, expiresMs: wall + 10_000).bytes)
        _ = try store.create("partition.1", Array("not json".utf8))
        var bad = 0, stale = 0
        for step in 0..<6 {
            let c = try a.step(now: Int64(step) * 3_333)
            bad += c.badValues
            stale += c.staleMembers
        }
        // ghost (far future), old (negative), partition.1 (not a lease); fine is fine.
        #expect(bad == 3)
        // The three other members' keys never changed: each counted once.
        #expect(stale == 3)
        #expect((0..<4).allSatisfy { a.owns($0, now: 5 * 3_333) })
        // A new revision of a bad value counts again.
        let r = try #require(try store.get("member.ghost")).revision
        _ = try store.update("member.ghost", Array(LeaseExpiryTests.farFuture.utf8), expected: r)
        #expect(try a.step(now: 6 * 3_333).badValues == 1)
    }
}
