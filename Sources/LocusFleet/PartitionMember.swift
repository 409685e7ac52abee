import Foundation

/// One server's part in a group that splits `partitions` partitions among its live members by
/// lease, in a `LeaseStore` (a JetStream key-value bucket). Call `step(now:)` about three times
/// per `leaseMs`: it renews the member's own key and its partitions' leases, gives back what is
/// above its fair share, and takes free or expired partitions up to it.
///
/// Leases expire by what this member observes, never by a time another machine wrote: a key
/// whose revision did not change for `leaseMs` of this member's own clock is expired
/// (`LeaseObservations`), and so are the partitions of a member whose own key is. A member's
/// keys get a new revision every step, so a live one never looks expired. A member that
/// starts sees every key for the first time: a dead server's partitions are taken `leaseMs`
/// after it started. Values that are not leases, or whose `expires_ms` is impossible, are
/// counted (`Changes.badValues`) and judged the same way.
///
/// Safety rests on compare-and-set alone: a partition changes hands only by a write at the
/// revision the new owner read, and a lease is taken over only once it was given back or its
/// writer stopped renewing it. A member that was paused (a "zombie") still believes in its
/// leases when it wakes; `owns(_:now:)` is false for every lease `leaseMs` past the start of
/// the step that last renewed it (before its write, so before anyone could see it), so it must
/// be asked before each publish or checkpoint, and the next `step` finds the revisions changed
/// and reports those partitions lost.
///
/// Not thread-safe: one task owns a member.
public final class PartitionMember {
    public let id: String
    public let partitions: Int
    public let leaseMs: Int64
    private let store: any LeaseStore
    /// The wall clock (ms since 1970) written into `expires_ms`, as information only.
    private let wallClockMs: () -> Int64
    private var observations: LeaseObservations

    /// A partition this member holds: its epoch, the key's revision after the last write, and
    /// when the lease runs out (this member's `now` clock).
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
        /// Lease keys seen at a new revision whose value is not a lease, or names an impossible
        /// expiry (`Lease.isPlausible`): a foreign writer, or a server whose clock is far off.
        public var badValues = 0
        /// Other members' keys found not renewed for `leaseMs` (a server that died, or a key
        /// another writer put there): no longer counted as members. Once per key revision.
        public var staleMembers = 0
        /// The live members this step saw, this one included, sorted (what the fair share was
        /// computed from): for saying who joined or left.
        public var members: [String] = []
        /// Members whose keys are still there but stopped changing (expired).
        public var silent: [String] = []
        /// Per partition in `acquired`: the member it was taken from (an expired or silent owner,
        /// or the member that gave it back); absent when it was never held.
        public var takenFrom: [Int: String] = [:]
    }

    /// `now` of `step` and `owns` is this member's own clock in ms, which must not jump (a
    /// monotonic clock that keeps counting while the process is stopped: CLOCK_BOOTTIME).
    /// `wallClockMs` gives what is written into `expires_ms` for people reading the bucket.
    public init(id: String, partitions: Int, leaseMs: Int64, store: any LeaseStore,
                wallClockMs: @escaping () -> Int64 = { Int64(Date().timeIntervalSince1970 * 1000) }) {
        precondition(partitions > 0 && leaseMs > 0)
        self.id = id
        self.partitions = partitions
        self.leaseMs = leaseMs
        self.store = store
        self.wallClockMs = wallClockMs
        observations = LeaseObservations(leaseMs: leaseMs)
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
        let wall = wallClockMs()
        try heartbeat(wall: wall)
        let (live, silent) = try members(now: now, wall: wall, changes: &changes)
        changes.members = live
        changes.silent = silent.sorted()
        // Renew what is held; a conflict or an expired lease means someone else may have it.
        for p in held.keys.sorted() {
            guard let h = held[p] else { continue }
            if h.expiresMs <= now {
                held[p] = nil
                changes.lost.append(p)
                continue
            }
            let renewed = Lease(owner: id, epoch: h.epoch, expiresMs: wall + leaseMs)
            switch try store.update(Self.partitionKey(p), renewed.bytes, expected: h.revision) {
            case .written(let revision):
                // From `now`, taken before the write: nobody saw the new revision earlier.
                held[p] = Held(epoch: h.epoch, revision: revision, expiresMs: now + leaseMs)
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
            let leases = try partitionLeases(now: now, wall: wall, silent: silent, changes: &changes)
            for p in PartitionShare.preference(for: id, among: live, partitions: partitions) where held[p] == nil {
                if held.count >= target { break }
                var lease = Lease(owner: id, epoch: 1, expiresMs: wall + leaseMs)
                let write: LeaseWrite
                if let current = leases[p] {
                    guard current.free else { continue }
                    lease.epoch = (current.lease?.epoch ?? 0) + 1
                    write = try store.update(Self.partitionKey(p), lease.bytes, expected: current.revision)
                } else {
                    write = try store.create(Self.partitionKey(p), lease.bytes)
                }
                if case .written(let r) = write {
                    held[p] = Held(epoch: lease.epoch, revision: r, expiresMs: now + leaseMs)
                    changes.acquired.append(.init(partition: p, epoch: lease.epoch))
                    if let previous = leases[p]?.lease {
                        let from = previous.owner.isEmpty ? previous.releasedBy : previous.owner
                        if !from.isEmpty { changes.takenFrom[p] = from }
                    }
                }
            }
        }
        return changes
    }

    /// Gives `p` back (after the runtime checkpointed it): its key is marked free (no owner, the
    /// epoch kept, so the next owner's is one higher) at the revision this member wrote. When
    /// another already took it, nothing is written and this returns false.
    @discardableResult
    public func release(_ p: Int) throws -> Bool {
        guard let h = held.removeValue(forKey: p) else { return false }
        let free = Lease(owner: "", epoch: h.epoch, expiresMs: 0, releasedBy: id)
        if case .written = try store.update(Self.partitionKey(p), free.bytes, expected: h.revision) { return true }
        return false
    }

    /// Leaves the group: releases every partition and deletes the member key.
    public func leave() throws {
        for p in held.keys.sorted() { try release(p) }
        if let r = memberRevision { _ = try store.delete(Self.memberKey(id), expected: r) }
        memberRevision = nil
    }

    /// Writes this member's key: a new revision every step, which is what others judge it by.
    private func heartbeat(wall: Int64) throws {
        let mine = Lease(owner: id, epoch: 0, expiresMs: wall + leaseMs).bytes
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

    /// The live members, this one included, sorted; and the ids of members whose keys stopped
    /// changing (their partitions' leases ran out by their own clocks before that was seen).
    private func members(now: Int64, wall: Int64, changes: inout Changes) throws -> (live: [String], silent: Set<String>) {
        let entries = try store.list(prefix: "member.")
        observations.keep(only: Set(entries.map(\.key)), prefix: "member.")
        var live: Set<String> = [id]
        var silent: Set<String> = []
        for e in entries {
            let member = String(e.key.dropFirst("member.".count))
            guard member != id else { continue }
            let sight = observations.see(e.key, revision: e.revision, now: now)
            if sight.isNewRevision, !Self.isGood(e.value, wall: wall) { changes.badValues += 1 }
            if sight.becameStale { changes.staleMembers += 1 }
            if sight.isStale { silent.insert(member) } else { live.insert(member) }
        }
        return (live.sorted(), silent)
    }

    /// Per partition key of this group's own form (another writer's `partition.01` is not
    /// partition 1; a repeat must not trap): its lease, revision, and whether it may be taken
    /// now — given back, not renewed for `leaseMs`, or its owner's member key is silent.
    private func partitionLeases(now: Int64, wall: Int64, silent: Set<String>,
                                 changes: inout Changes) throws -> [Int: (lease: Lease?, revision: UInt64, free: Bool)] {
        let entries = try store.list(prefix: "partition.")
        observations.keep(only: Set(entries.map(\.key)), prefix: "partition.")
        var out: [Int: (lease: Lease?, revision: UInt64, free: Bool)] = [:]
        for e in entries {
            guard let p = Int(e.key.dropFirst("partition.".count)), Self.partitionKey(p) == e.key, out[p] == nil else { continue }
            let sight = observations.see(e.key, revision: e.revision, now: now)
            let lease = Lease(bytes: e.value)
            if sight.isNewRevision, !Self.isGood(e.value, wall: wall) { changes.badValues += 1 }
            let free = lease?.owner == "" || sight.isStale || lease.map { silent.contains($0.owner) } == true
            out[p] = (lease, e.revision, free)
        }
        return out
    }

    /// A lease whose expiry a server of the group could have written.
    private static func isGood(_ value: [UInt8], wall: Int64) -> Bool {
        guard let lease = Lease(bytes: value) else { return false }
        return lease.isPlausible(wallMs: wall)
    }
}
