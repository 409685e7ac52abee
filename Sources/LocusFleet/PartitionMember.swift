/// One server's part in a group that splits `partitions` partitions among its live members by
/// lease, in a `LeaseStore` (a JetStream key-value bucket). Call `step(now:)` about three times
/// per `leaseMs`: it renews the member's own key and its partitions' leases, gives back what is
/// above its fair share, and takes free or expired partitions up to it.
///
/// Safety rests on compare-and-set alone: a partition changes hands only by a write at the
/// revision the new owner read, and a lease is taken over only after it expired. A member that
/// was paused (a "zombie") still believes in its leases when it wakes; `owns(_:now:)` is false
/// for every lease past its expiry, so it must be asked before each publish or checkpoint, and
/// the next `step` finds the revisions changed and reports those partitions lost.
///
/// Not thread-safe: one task owns a member.
public final class PartitionMember {
    public let id: String
    public let partitions: Int
    public let leaseMs: Int64
    private let store: any LeaseStore

    /// A partition this member holds: its epoch, the key's revision after the last write, and
    /// when the lease runs out (this member's clock).
    public struct Held: Equatable, Sendable {
        public var epoch: UInt64
        public var revision: UInt64
        public var expiresMs: Int64
    }

    public private(set) var held: [Int: Held] = [:]
    private var memberRevision: UInt64?

    /// What a step changed. The runtime restores each acquired partition's checkpoint before it
    /// consumes, stops a lost one at once (its events may already be another's), and for each in
    /// `releasing` checkpoints it and then calls `release(_:)`.
    public struct Changes: Equatable, Sendable {
        /// A partition taken, under a new epoch.
        public struct Acquired: Equatable, Sendable {
            public var partition: Int
            public var epoch: UInt64
        }

        public var acquired: [Acquired] = []
        public var lost: [Int] = []
        public var releasing: [Int] = []
    }

    public init(id: String, partitions: Int, leaseMs: Int64, store: any LeaseStore) {
        precondition(partitions > 0 && leaseMs > 0)
        self.id = id
        self.partitions = partitions
        self.leaseMs = leaseMs
        self.store = store
    }

    static func partitionKey(_ p: Int) -> String { "partition.\(p)" }
    static func memberKey(_ id: String) -> String { "member.\(id)" }

    /// True while this member holds a lease on `p` that has not run out by `now`.
    public func owns(_ p: Int, now: Int64) -> Bool {
        guard let h = held[p] else { return false }
        return h.expiresMs > now
    }

    /// The epoch of `p`'s lease while `owns(p, now:)`.
    public func epoch(of p: Int, now: Int64) -> UInt64? { owns(p, now: now) ? held[p]?.epoch : nil }

    /// One round: heartbeat, renewals, releases planned, acquisitions. Store errors are thrown;
    /// leases keep running out meanwhile, so `owns` turns false on its own.
    public func step(now: Int64) throws -> Changes {
        var changes = Changes()
        try heartbeat(now: now)
        let live = try liveMembers(now: now)
        // Renew what is held; a conflict or an expired lease means someone else may have it.
        for p in held.keys.sorted() {
            guard let h = held[p] else { continue }
            if h.expiresMs <= now {
                held[p] = nil
                changes.lost.append(p)
                continue
            }
            let renewed = Lease(owner: id, epoch: h.epoch, expiresMs: now + leaseMs)
            switch try store.update(Self.partitionKey(p), renewed.bytes, expected: h.revision) {
            case .written(let revision):
                held[p] = Held(epoch: h.epoch, revision: revision, expiresMs: renewed.expiresMs)
            case .conflict:
                held[p] = nil
                changes.lost.append(p)
            }
        }
        let target = PartitionShare.target(for: id, among: live, partitions: partitions)
        if held.count > target {
            // Give back those furthest down this member's own preference.
            let order = PartitionShare.preference(for: id, among: live, partitions: partitions)
            let rank = Dictionary(uniqueKeysWithValues: order.enumerated().map { ($1, $0) })
            changes.releasing = held.keys.sorted { rank[$0, default: 0] > rank[$1, default: 0] }.prefix(held.count - target).sorted()
        } else if held.count < target {
            // Keys come from the store: only this group's own form counts (another writer's
            // `partition.01` is not partition 1), and a repeat must not trap.
            let leases = Dictionary(try store.list(prefix: "partition.").compactMap { e -> (Int, (Lease?, UInt64))? in
                guard let p = Int(e.key.dropFirst("partition.".count)), Self.partitionKey(p) == e.key else { return nil }
                return (p, (Lease(bytes: e.value), e.revision))
            }, uniquingKeysWith: { first, _ in first })
            for p in PartitionShare.preference(for: id, among: live, partitions: partitions) where held[p] == nil {
                if held.count >= target { break }
                var lease = Lease(owner: id, epoch: 1, expiresMs: now + leaseMs)
                let write: LeaseWrite
                if let (current, revision) = leases[p] {
                    // Taken only once it has run out (or is not a lease at all).
                    if let current, current.expiresMs > now { continue }
                    lease.epoch = (current?.epoch ?? 0) + 1
                    write = try store.update(Self.partitionKey(p), lease.bytes, expected: revision)
                } else {
                    write = try store.create(Self.partitionKey(p), lease.bytes)
                }
                if case .written(let r) = write {
                    held[p] = Held(epoch: lease.epoch, revision: r, expiresMs: lease.expiresMs)
                    changes.acquired.append(.init(partition: p, epoch: lease.epoch))
                }
            }
        }
        return changes
    }

    /// Gives `p` back (after the runtime checkpointed it): its key is marked free (run out, the
    /// epoch kept, so the next owner's is one higher) at the revision this member wrote. When
    /// another already took it, nothing is written and this returns false.
    @discardableResult
    public func release(_ p: Int) throws -> Bool {
        guard let h = held.removeValue(forKey: p) else { return false }
        let free = Lease(owner: "", epoch: h.epoch, expiresMs: 0)
        if case .written = try store.update(Self.partitionKey(p), free.bytes, expected: h.revision) { return true }
        return false
    }

    /// Leaves the group: releases every partition and deletes the member key.
    public func leave() throws {
        for p in held.keys.sorted() { try release(p) }
        if let r = memberRevision { _ = try store.delete(Self.memberKey(id), expected: r) }
        memberRevision = nil
    }

    private func heartbeat(now: Int64) throws {
        let mine = Lease(owner: id, epoch: 0, expiresMs: now + leaseMs).bytes
        if let r = memberRevision, case .written(let next) = try store.update(Self.memberKey(id), mine, expected: r) {
            memberRevision = next
            return
        }
        // First beat, or the key changed under us (deleted, or rewritten by an earlier run of
        // this id): write it afresh at whatever revision it has.
        if let current = try store.get(Self.memberKey(id)) {
            if case .written(let next) = try store.update(Self.memberKey(id), mine, expected: current.revision) { memberRevision = next }
        } else if case .written(let next) = try store.create(Self.memberKey(id), mine) {
            memberRevision = next
        }
    }

    /// The members whose heartbeat has not run out, this one included.
    private func liveMembers(now: Int64) throws -> [String] {
        var ids = Set(try store.list(prefix: "member.").compactMap { e -> String? in
            guard let lease = Lease(bytes: e.value), lease.expiresMs > now else { return nil }
            return String(e.key.dropFirst("member.".count))
        })
        ids.insert(id)
        return ids.sorted()
    }
}
