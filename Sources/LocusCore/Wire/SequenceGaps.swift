/// A break in one producer's sequence numbers as a subscriber saw it (docs/protocol.md 4.2).
public struct SequenceGap: Sendable, Equatable {
    public var producer: String
    /// The last sequence number seen before, and the one that came now.
    public var after: UInt64
    public var seq: UInt64
    /// Messages between them that were not received: lost, or (when subscribed to some topic
    /// prefixes only) published on topics not subscribed to. 0 for a restart.
    public var missed: UInt64
    /// The producer started again at 1: nothing is known to be lost.
    public var restarted: Bool

    public init(producer: String, after: UInt64, seq: UInt64, missed: UInt64, restarted: Bool) {
        self.producer = producer
        self.after = after
        self.seq = seq
        self.missed = missed
        self.restarted = restarted
    }
}

/// Follows each producer's sequence numbers (1, 2, 3, … across all its topics) and reports
/// where they break, counting the messages missed per producer.
public struct SequenceGapTracker: Sendable {
    public private(set) var lastSeen: [String: UInt64] = [:]
    public private(set) var missed: [String: UInt64] = [:]
    public private(set) var gaps = 0

    public init() {}

    /// Continues from positions saved earlier (producer → last sequence number seen).
    public init(lastSeen: [String: UInt64]) { self.lastSeen = lastSeen }

    /// The gap before message `seq` of `producer`, or nil when it follows on (or is the first).
    public mutating func check(producer: String, seq: UInt64) -> SequenceGap? {
        let last = lastSeen.updateValue(seq, forKey: producer)
        guard let last, seq != last &+ 1 else { return nil }
        gaps += 1
        if seq == 1 { return SequenceGap(producer: producer, after: last, seq: seq, missed: 0, restarted: true) }
        // Backwards without a restart (two producers sharing an id, a duplicate): nothing missed.
        let n = seq > last ? seq - last - 1 : 0
        if n > 0 { missed[producer, default: 0] += n }
        return SequenceGap(producer: producer, after: last, seq: seq, missed: n, restarted: false)
    }

    public var missedTotal: UInt64 { missed.values.reduce(0, +) }
}
