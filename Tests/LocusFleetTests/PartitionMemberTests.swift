import LocusCore
import LocusFleet
import Testing

/// Several members of one group on one store and one simulated clock, stepped every third of a
/// lease. After every step of every member, no partition may be owned (`owns`) by two members.
final class GroupSimulation {
    let store = MemoryLeaseStore()
    let partitions: Int
    let leaseMs: Int64 = 10_000
    var now: Int64 = 1_000_000
    var members: [String: PartitionMember] = [:]
    /// Members that are not stepped (killed or paused).
    var stopped: Set<String> = []
    /// Per member, how far its own clock is from `now` (machines' clocks differ).
    var offsets: [String: Int64] = [:]
    var acquired: [String: [PartitionMember.Changes.Acquired]] = [:]
    var lost: [String: [Int]] = [:]

    init(partitions: Int, members ids: [String]) {
        self.partitions = partitions
        for id in ids { add(id) }
    }

    func add(_ id: String) { members[id] = PartitionMember(id: id, partitions: partitions, leaseMs: leaseMs, store: store) }

    /// `id`'s own clock.
    func clock(_ id: String) -> Int64 { now + offsets[id, default: 0] }

    /// Steps every running member once (in id order), then advances the clock a third of a lease.
    func round(sourceLocation: SourceLocation = #_sourceLocation) throws {
        for (id, m) in members.sorted(by: { $0.key < $1.key }) where !stopped.contains(id) {
            let c = try m.step(now: clock(id))
            acquired[id, default: []] += c.acquired
            lost[id, default: []] += c.lost
            for p in c.releasing { try m.release(p) }
            try checkSingleOwners(sourceLocation: sourceLocation)
        }
        now += leaseMs / 3
    }

    func checkSingleOwners(sourceLocation: SourceLocation) throws {
        for p in 0..<partitions {
            let owners = members.filter { $0.value.owns(p, now: clock($0.key)) }.map(\.key).sorted()
            #expect(owners.count <= 1, "partition \(p) owned by \(owners) at \(now)", sourceLocation: sourceLocation)
        }
    }

    func owned(by id: String) -> Int { (0..<partitions).filter { members[id]!.owns($0, now: clock(id)) }.count }

    /// Rounds until every partition is owned by a running member and the shares are fair, at most `limit`.
    @discardableResult
    func settle(limit: Int = 30) throws -> Int {
        for n in 1...limit {
            try round()
            let running = members.keys.filter { !stopped.contains($0) }
            let total = running.reduce(0) { $0 + owned(by: $1) }
            let shares = running.map { owned(by: $0) }
            if total == partitions, shares.max()! - shares.min()! <= 1 { return n }
        }
        return limit + 1
    }
}

@Suite struct PartitionMemberTests {
    @Test func threeMembersSplitSixtyFourPartitionsFairly() throws {
        let g = GroupSimulation(partitions: 64, members: ["a", "b", "c"])
        let rounds = try g.settle()
        #expect(rounds <= 4)
        #expect(["a", "b", "c"].map { g.owned(by: $0) } == [22, 21, 21])
    }

    @Test func aKilledMembersPartitionsAreTakenOverWithinTwoLeases() throws {
        let g = GroupSimulation(partitions: 64, members: ["a", "b", "c"])
        try g.settle()
        let bHad = (0..<64).filter { g.members["b"]!.owns($0, now: g.now) }
        g.stopped.insert("b")
        let killedAt = g.now
        var takenOverAt: Int64?
        for _ in 0..<20 {
            try g.round()
            if bHad.allSatisfy({ p in ["a", "c"].contains { g.members[$0]!.owns(p, now: g.now) } }) {
                takenOverAt = g.now
                break
            }
        }
        let took = try #require(takenOverAt)
        #expect(took - killedAt <= 2 * g.leaseMs, "taken over after \(took - killedAt) ms")
        #expect(g.owned(by: "a") + g.owned(by: "c") == 64)
        // Each taken-over partition changed hands: a new epoch.
        let epochs = bHad.compactMap { p in ["a", "c"].lazy.compactMap { g.members[$0]!.epoch(of: p, now: g.now) }.first }
        #expect(epochs.count == bHad.count && epochs.allSatisfy { $0 >= 2 })
    }

    @Test func aJoiningMemberGetsItsShare() throws {
        let g = GroupSimulation(partitions: 64, members: ["a", "b", "c"])
        try g.settle()
        g.add("d")
        let rounds = try g.settle()
        #expect(rounds <= 6)
        #expect(["a", "b", "c", "d"].map { g.owned(by: $0) } == [16, 16, 16, 16])
    }

    @Test func aPausedMemberOwnsNothingWhenItWakesAndIsToldWhatItLost() throws {
        let g = GroupSimulation(partitions: 12, members: ["a", "b"])
        try g.settle()
        let bHad = (0..<12).filter { g.members["b"]!.owns($0, now: g.now) }
        #expect(bHad.count == 6)
        g.stopped.insert("b")  // SIGSTOP
        for _ in 0..<8 { try g.round() }  // past its leases: a takes everything
        #expect(g.owned(by: "a") == 12)
        // SIGCONT: before its next step, b must not publish or checkpoint for any partition.
        #expect(bHad.allSatisfy { !g.members["b"]!.owns($0, now: g.now) })
        g.stopped.remove("b")
        try g.round()
        #expect(Set(g.lost["b"] ?? []) == Set(bHad))
        // It rejoins and gets its share back, each partition under a newer epoch.
        try g.settle()
        #expect(g.owned(by: "a") == 6 && g.owned(by: "b") == 6)
    }

    @Test func aWriteUnderAnOldRevisionChangesNothing() throws {
        let store = MemoryLeaseStore()
        guard case .written(let r1) = try store.create("partition.0", Lease(owner: "a", epoch: 1, expiresMs: 10).bytes) else {
            Issue.record("create failed")
            return
        }
        #expect(try store.create("partition.0", Lease(owner: "b", epoch: 1, expiresMs: 10).bytes) == .conflict)
        guard case .written = try store.update("partition.0", Lease(owner: "b", epoch: 2, expiresMs: 20).bytes, expected: r1) else {
            Issue.record("update failed")
            return
        }
        #expect(try store.update("partition.0", Lease(owner: "a", epoch: 1, expiresMs: 30).bytes, expected: r1) == .conflict)
        #expect(Lease(bytes: try #require(try store.get("partition.0")).value) == Lease(owner: "b", epoch: 2, expiresMs: 20))
    }

    @Test func anUnreachableStoreLetsLeasesRunOut() throws {
        let g = GroupSimulation(partitions: 4, members: ["a"])
        try g.settle()
        #expect(g.owned(by: "a") == 4)
        g.store.unreachable = true
        for _ in 0..<4 {
            #expect(throws: MemoryLeaseStore.Unreachable.self) { _ = try g.members["a"]!.step(now: g.now) }
            g.now += g.leaseMs / 3
        }
        #expect(g.owned(by: "a") == 0)
    }

    @Test func leaseValuesRoundTripAndForeignValuesAreNotLeases() {
        let lease = Lease(owner: "server-1", epoch: 42, expiresMs: 1_764_000_000_000)
        #expect(Lease(bytes: lease.bytes) == lease)
        #expect(Lease(bytes: Array("hello".utf8)) == nil)
        #expect(Lease(bytes: Array(#"{"owner":"x","epoch":-1,"expires_ms":0}"#.utf8)) == nil)
    }
}
