import LocusCore

/// What a batch of messages tells the delivery gate once it is handled: for each run of
/// consecutive messages from one producer, the last one's sequence number. The gate keeps only
/// the latest number per producer, so this is what reporting every message would leave it
/// with, in the same order, at one call per run instead of one per message (a batch of a
/// busy feed is a few runs of hundreds).
struct ConsumedMarks: Sendable {
    private(set) var marks: [(producer: String, seq: UInt64)] = []

    init<S: Sequence>(_ messages: S) where S.Element == BusMessage {
        for message in messages {
            let producer = message.envelope.producer
            if let last = marks.indices.last, marks[last].producer == producer {
                marks[last].seq = message.envelope.seq
            } else {
                marks.append((producer, message.envelope.seq))
            }
        }
    }
}
