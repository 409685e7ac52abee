import LocusCore
import LocusFormats

/// What a `nats` source did, cumulative since it started. `dropped*` fields are messages not
/// published, by reason; they also appear among the daemon's drop counters.
public struct NATSSourceCounters: ZeroedCounters, Equatable {
    /// Messages read from the stream.
    public var messages = 0
    /// `obs.fix.<device>` messages published.
    public var fixesPublished = 0
    /// Valid messages that are not positions (OwnTracks transitions, cards, lwt; other Locus events).
    public var ignored = 0
    /// Devices seen.
    public var devices = 0
    /// Messages of the stream not yet read by this source (its lag): without a group as of the
    /// last message read, in a group the sum over its partitions as of the last round.
    public var pending = 0
    /// The stream sequence of the last message read.
    public var lastSequence = 0
    /// With a group: the partitions this server reads now, and the highest epoch among them.
    public var partitionsOwned = 0
    public var highestEpoch = 0
    /// With a group: partitions taken (at start, from a dead server, after a rebalance), given
    /// back to a joining server, and lost (the lease ran out: this server was paused or cut off).
    public var acquired = 0
    public var released = 0
    public var lost = 0
    /// With a group: position writes refused because another server owns the partition now.
    public var positionConflicts = 0
    /// With a group: values in the group's bucket under `member.` or `partition.` that are not
    /// leases or name an impossible expiry (a foreign writer, a clock far off), once per value
    /// written; like any lease they expire `lease_ttl` after they last changed.
    public var badLeaseValues = 0
    /// With a group: other members' keys found unchanged for `lease_ttl` (a server that died, or
    /// a key put there by hand): no longer members, their partitions free.
    public var staleMembers = 0
    /// With a group: position keys of partitions taken that hold something that is not a
    /// position; read as no position (`start` applies).
    public var badPositionValues = 0
    /// Positions past the stream's last sequence (the stream was deleted and recreated or
    /// restored, or the position forged): read from the stream's first message, without the
    /// position's service state.
    public var positionsPastStream = 0
    /// Positions before the stream's first message (retention removed what came after them):
    /// read from the first message the stream holds.
    public var positionsBeforeStream = 0
    /// With a group and services that move device state: positions written with their devices'
    /// state (`checkpoints`), and the device states in them (`states_checkpointed`); states put
    /// into the services from a partition taken (`states_restored`).
    public var checkpoints = 0
    public var statesCheckpointed = 0
    public var statesRestored = 0
    /// Checkpoints not written: the services did not give their state in time (behind, or
    /// restarting), or the bucket refused the value (larger than the server's `max_payload`).
    /// The partition's last written position and state stay; a new owner reads on from there.
    public var checkpointFailures = 0
    /// The longest checkpoint so far, in ms (the source reads nothing meanwhile), and the longest
    /// part of one spent waiting for the services and taking their state.
    public var checkpointMsMax = 0
    public var stateExportMsMax = 0
    /// A partition taken whose state the services did not take (in time): nothing of it is read
    /// until they do (retried every round).
    public var stateRestoreFailures = 0
    public var connects = 0
    public var connectFailures = 0
    /// Reads that failed (server away, consumer gone) and were retried.
    public var readRetries = 0
    /// Consumers found gone (their only copy was on a NATS server that died) and made again
    /// after the last message handled.
    public var consumersLost = 0
    public var droppedTooLarge = 0
    public var droppedNotJson = 0
    public var droppedMissingField = 0
    public var droppedWrongType = 0
    public var droppedOutOfRange = 0
    /// The subject has too few tokens for `device_tokens`, or names no usable device id.
    public var droppedBadDevice = 0
    /// A device beyond `max_devices`.
    public var droppedTooManyDevices = 0
    /// A device sending faster than `max_rate`.
    public var droppedRateLimit = 0
    public init() {}

    mutating func count(_ problem: IncomingLocation.Problem) {
        switch problem {
        case .tooLarge: droppedTooLarge += 1
        case .notJSON: droppedNotJson += 1
        case .ignored: ignored += 1
        case .missingField: droppedMissingField += 1
        case .wrongType: droppedWrongType += 1
        case .outOfRange: droppedOutOfRange += 1
        }
    }
}
