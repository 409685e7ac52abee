import LocusCore
import LocusFleet

/// A `nats` source's membership in a group of servers: which partitions of the fleet it reads
/// (leases in the group's key-value bucket, `PartitionMember`), and how far each was read
/// (`position.<n>` in the same bucket, written by compare-and-set on its revision).
///
/// A partition is read only while its lease holds (`owns`). When the lease is lost — another
/// server took it after this one was paused past `lease_ttl`, or the bucket refused a renewal —
/// or a position write conflicts, the partition is dropped at once: the reader publishes
/// nothing more of it and writes no position for it.
final class NATSPartitionGroup {
    let member: PartitionMember
    private let store: any LeaseStore
    /// Per owned partition: the revision of its position key as this owner last wrote it.
    private var positionRevisions: [Int: UInt64] = [:]
    /// Where a partition with no position starts (`start`): the stream's last sequence when the
    /// group first takes it (`new`; asked only then), or nil for its first message (`all`).
    private let startSequence: (() throws -> UInt64)?

    init(member: PartitionMember, store: any LeaseStore, startSequence: (() throws -> UInt64)? = nil) {
        self.member = member
        self.store = store
        self.startSequence = startSequence
    }

    static func positionKey(_ p: Int) -> String { "position.\(p)" }

    /// A partition newly owned: its epoch, where reading resumes (nil: no position yet) and the
    /// services' state of its devices there (nil: none was written).
    struct Taken: Equatable {
        var partition: Int
        var epoch: UInt64
        var after: UInt64?
        var state: DeviceStateBundle?
        /// It had no position yet: it starts where `start` says (`after` is then the stream's
        /// last sequence for `new`, nil for `all`).
        var fresh = false
        /// Its position key held something that is not a position (counted; read as none).
        var badPosition = false
        /// The member whose lease it was (expired, silent, or one that gave it back); nil when never held.
        var from: String?
    }

    struct Round {
        var taken: [Taken] = []
        var lost: [Int] = []
        /// Partitions to give back (the group grew): the caller commits their positions, then `release`s them.
        var releasing: [Int] = []
        /// The member's findings in the bucket (`PartitionMember.Changes`).
        var badLeaseValues = 0
        var staleMembers = 0
        /// A request about a partition taken failed: it was given back (the caller reports it).
        var failure: (any Error)?
        /// The live members (this one included) and those whose keys expired (`PartitionMember.Changes`).
        var members: [String] = []
        var silent: [String] = []
    }

    /// One membership round (heartbeat, renewals, acquisitions). A partition acquired whose
    /// position cannot be claimed for this epoch (another wrote it in between) is lost again.
    func step(now: Int64) throws -> Round {
        let changes = try member.step(now: now)
        var round = Round(lost: changes.lost, releasing: changes.releasing, badLeaseValues: changes.badValues,
                          staleMembers: changes.staleMembers, members: changes.members, silent: changes.silent)
        for p in changes.lost { positionRevisions[p] = nil }
        for acquired in changes.acquired {
            let p = acquired.partition
            do {
                let current = try store.get(Self.positionKey(p))
                let previous = current.flatMap { PartitionPosition(bytes: $0.value) }
                // No position yet: `start` decides, once — the claim below writes it, so every
                // later owner reads on from there.
                let start = try previous == nil ? startSequence?() : nil
                let claim = PartitionPosition(sequence: previous?.sequence ?? start ?? 0, epoch: acquired.epoch, state: previous?.state)
                let write = try current.map { try store.update(Self.positionKey(p), claim.bytes, expected: $0.revision) }
                    ?? store.create(Self.positionKey(p), claim.bytes)
                guard case .written(let revision) = write else {
                    try member.release(p)
                    round.lost.append(p)
                    continue
                }
                positionRevisions[p] = revision
                round.taken.append(Taken(partition: p, epoch: acquired.epoch, after: previous.map(\.sequence) ?? start, state: previous?.state,
                                         fresh: previous == nil, badPosition: current != nil && previous == nil,
                                         from: changes.takenFrom[p]))
            } catch {
                // Not held half-way (its lease renewed, nothing reading it): given back, or left
                // to run out when the bucket cannot be reached; taken again in a later round.
                try? member.release(p)
                round.failure = round.failure ?? error
            }
        }
        return round
    }

    /// Writes how far `p` was read, with its devices' state there. False when this server no
    /// longer owns it (the lease ran out, or another owner wrote the position): the caller drops
    /// the partition.
    func commit(_ p: Int, sequence: UInt64, state: DeviceStateBundle?, now: Int64) throws -> Bool {
        guard let revision = positionRevisions[p], let epoch = member.epoch(of: p, now: now) else { return false }
        let position = PartitionPosition(sequence: sequence, epoch: epoch, state: state)
        switch try store.update(Self.positionKey(p), position.bytes, expected: revision) {
        case .written(let next):
            positionRevisions[p] = next
            return true
        case .conflict:
            positionRevisions[p] = nil
            return false
        }
    }

    /// Gives `p` back after its position was committed.
    func release(_ p: Int) throws {
        positionRevisions[p] = nil
        try member.release(p)
    }

    /// Leaves the group (the source stops): every partition is given back at once, so the others
    /// take them in their next round instead of after `lease_ttl`.
    func leave() throws {
        positionRevisions = [:]
        try member.leave()
    }
}
