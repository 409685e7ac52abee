/// A break in a producer's sequence numbers as a subscriber saw it (docs/protocol.md 4.2).
public struct SequenceGap: Sendable, Equatable {
    public var producer: String
    /// The topic whose `topic_seq` broke; nil when the break is in the producer-wide `seq`.
    public var topic: String?
    /// The last sequence number seen before, and the one that came now (`topic_seq` values
    /// when `topic` is set).
    public var after: UInt64
    public var seq: UInt64
    /// Messages between them that were not received: lost, or (when subscribed to some topic
    /// prefixes only and compared by `seq`) published on topics not subscribed to. 0 for a restart.
    public var missed: UInt64
    /// The producer (or, with `topic`, that topic's numbering) started again at 1: nothing is
    /// known to be lost.
    public var restarted: Bool

    public init(producer: String, topic: String? = nil, after: UInt64, seq: UInt64, missed: UInt64, restarted: Bool) {
        self.producer = producer
        self.topic = topic
        self.after = after
        self.seq = seq
        self.missed = missed
        self.restarted = restarted
    }
}

/// Follows sequence numbers and reports where they break, counting the messages missed per
/// producer.
///
/// Subscribed to everything, it compares each producer's `seq` (1, 2, 3, … across all its
/// topics): any jump is loss. Subscribed to some prefixes only (`perTopic`), a jump in `seq` may
/// be messages on other topics, so it compares `topic_seq` per producer and topic instead, and
/// falls back to `seq` for messages without one (producers of protocol version 1).
/// `lastSeen` is always the last `seq` per producer: the position a catch-up resumes from.
public struct SequenceGapTracker: Sendable {
    public private(set) var lastSeen: [String: UInt64] = [:]
    public private(set) var missed: [String: UInt64] = [:]
    public private(set) var gaps = 0
    /// Compare `topic_seq` per producer and topic (set when subscribed to some prefixes only).
    public let perTopic: Bool
    private var lastTopicSeen: [ProducerTopic: UInt64] = [:]

    /// Most (producer, topic) positions kept; past it all are forgotten, and the next message
    /// of each topic counts as its first (a gap there could then go unreported, never invented).
    public static let topicLimit = 262_144

    /// Continues from positions saved earlier (producer → last sequence number seen).
    public init(lastSeen: [String: UInt64] = [:], perTopic: Bool = false) {
        self.lastSeen = lastSeen
        self.perTopic = perTopic
    }

    /// The gap before a message, or nil when it follows on (or is the first).
    public mutating func check(_ envelope: Envelope, topic: String) -> SequenceGap? {
        check(producer: envelope.producer, seq: envelope.seq, topic: topic, topicSeq: envelope.topicSeq)
    }

    /// The gap before message `seq` (and `topicSeq` on `topic`) of `producer`, or nil when it
    /// follows on (or is the first).
    public mutating func check(producer: String, seq: UInt64, topic: String? = nil, topicSeq: UInt64? = nil) -> SequenceGap? {
        let last = lastSeen.updateValue(seq, forKey: producer)
        if perTopic, let topic, let topicSeq {
            let key = ProducerTopic(producer: producer, topic: topic)
            if lastTopicSeen.count >= Self.topicLimit && lastTopicSeen[key] == nil { lastTopicSeen.removeAll() }
            guard let lastOnTopic = lastTopicSeen.updateValue(topicSeq, forKey: key) else { return nil }
            return compare(producer: producer, topic: topic, last: lastOnTopic, now: topicSeq)
        }
        guard let last else { return nil }
        return compare(producer: producer, topic: nil, last: last, now: seq)
    }

    private mutating func compare(producer: String, topic: String?, last: UInt64, now: UInt64) -> SequenceGap? {
        guard now != last &+ 1 else { return nil }
        gaps += 1
        if now == 1 { return SequenceGap(producer: producer, topic: topic, after: last, seq: now, missed: 0, restarted: true) }
        // Backwards without a restart (two producers sharing an id, a duplicate): nothing missed.
        let n = now > last ? now - last - 1 : 0
        if n > 0 { missed[producer, default: 0] += n }
        return SequenceGap(producer: producer, topic: topic, after: last, seq: now, missed: n, restarted: false)
    }

    public var missedTotal: UInt64 { missed.values.reduce(0, +) }
}

private struct ProducerTopic: Hashable, Sendable {
    var producer: String
    var topic: String
}
