import LocusCore
import LocusFormats

/// What an `mqtt` source did, cumulative since it started. `dropped*` fields are messages not
/// published, by reason; they also appear among the daemon's drop counters (`<id>.not_json`, …).
public struct MQTTSourceCounters: ZeroedCounters, Equatable {
    /// Messages received from the broker.
    public var messages = 0
    /// `obs.fix.<device>` messages published.
    public var fixesPublished = 0
    /// Valid messages that are not positions (OwnTracks transitions, cards, lwt; other Locus events).
    public var ignored = 0
    /// Devices seen (of this source's partition).
    public var devices = 0
    /// Messages on a topic of `ignore_topics`: not this source's (not a loss).
    public var ignoredTopic = 0
    /// Fixes of devices in another server's partition (`partition`): not this server's to take.
    public var otherPartition = 0
    public var connects = 0
    public var connectFailures = 0
    public var disconnects = 0
    public var droppedTooLarge = 0
    public var droppedNotJson = 0
    public var droppedMissingField = 0
    public var droppedWrongType = 0
    public var droppedOutOfRange = 0
    /// The topic has too few levels for `device_levels`, or names no usable device id.
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
