/// Counters of one `SocketSubscription`.
public struct SubscriptionStatistics: Sendable, Equatable {
    /// Messages decoded and handed to the `messages` stream.
    public var delivered: UInt64 = 0
    /// Messages skipped because they were not two frames or did not decode.
    public var undecodable: UInt64 = 0
    /// Messages dropped because the consumer of `messages` fell `bufferLimit` messages behind.
    public var droppedSlowConsumer: UInt64 = 0

    public init() {}

    /// Adds another subscription's counts (a plugin's feeds across restarts).
    public mutating func add(_ other: SubscriptionStatistics) {
        delivered &+= other.delivered
        undecodable &+= other.undecodable
        droppedSlowConsumer &+= other.droppedSlowConsumer
    }
}
