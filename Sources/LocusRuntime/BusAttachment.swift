import LocusBus
import LocusCore

/// A subscription as the runner sees it: a stream of messages and a way to end it.
public protocol BusFeed: Sendable {
    var messages: AsyncStream<BusMessage> { get }
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
}

/// How plugin runners attach to the bus. The runtime implements it over the ZeroMQ hub; tests
/// may implement it in memory.
public protocol BusAttachment: Sendable {
    func makeOutlet(for producer: String) throws -> any ClosableOutlet
    /// Subscribes to `prefixes`; returns once the subscription is active at the hub.
    func subscribe(_ prefixes: [String], for consumer: String) throws -> any BusFeed
}
