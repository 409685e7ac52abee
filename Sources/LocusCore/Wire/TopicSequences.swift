/// One producer's `topic_seq` counters: the next number per topic (docs/protocol.md 4.2).
///
/// Bounded: past `limit` distinct topics (a producer naming topics after what it hears, say
/// beacons or fleet devices) every counter is forgotten and each topic starts again at 1, which
/// subscribers read as a restart of that topic, never as loss.
public struct TopicSequences: Sendable {
    /// Most topics numbered before the counters start over: above the MQTT source's default
    /// `max_devices` (100,000), as a fleet server publishes a topic per device. About 100 bytes
    /// a topic, spent only by a producer with that many topics.
    public static let limit = 131_072
    private var last: [String: UInt64] = [:]

    public init() {}

    /// The number for the next message on `topic`.
    public mutating func next(_ topic: String) -> UInt64 {
        // One hash lookup on the usual path: the index, then the value in place.
        if let i = last.index(forKey: topic) {
            last.values[i] &+= 1
            return last.values[i]
        }
        if last.count >= Self.limit { last.removeAll(keepingCapacity: true) }
        last[topic] = 1
        return 1
    }

    /// Sets the last number given on `topic` (restoring counters after a restart).
    public mutating func set(_ topic: String, last: UInt64) {
        if self.last[topic] == nil, self.last.count >= Self.limit { return }
        self.last[topic] = last
    }

    /// How many topics are numbered now.
    public var count: Int { last.count }
}
