import LocusBus
import LocusCore

/// A subscription as the runner sees it: a queue of messages and a way to end it.
public protocol BusFeed: Sendable {
    /// The messages, taken in batches by one consumer.
    var queue: FeedQueue { get }
    /// Ends the stream. With `drain`, messages already received by the socket are delivered first.
    func stop(drain: Bool)
    /// What the feed received and could not deliver, for `locus ctl status`; nil if not counted.
    var statistics: SubscriptionStatistics? { get }
}

extension BusFeed {
    public var statistics: SubscriptionStatistics? { nil }
}

/// An outlet the runner can close when its plugin is done.
public protocol ClosableOutlet: MessageOutlet {
    /// Sends what is queued, then releases the socket.
    func close()
    /// Messages handed on and dropped (at the high-water mark, or after close), for
    /// `locus ctl status`; nil if not counted.
    var sendStatistics: OutletStatistics? { get }
}

extension ClosableOutlet {
    public var sendStatistics: OutletStatistics? { nil }
}

/// Counters of an outlet.
public struct OutletStatistics: Sendable, Equatable {
    public var sent: UInt64
    public var dropped: UInt64
    public init(sent: UInt64, dropped: UInt64) {
        self.sent = sent
        self.dropped = dropped
    }
}

/// How plugin runners attach to the bus. The runtime implements it over the ZeroMQ hub; tests
/// may implement it in memory.
public protocol BusAttachment: Sendable {
    func makeOutlet(for producer: String) throws -> any ClosableOutlet
    /// Subscribes to `prefixes`; returns once the subscription is active at the hub.
    func subscribe(_ prefixes: [String], for consumer: String) throws -> any BusFeed
}
