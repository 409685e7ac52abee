import LocusCore

/// How far a service has processed its input, so that after a restart it does not process a
/// message twice: per producer and topic, the event time of the last message processed and how
/// many messages at that time were.
///
/// Not sequence numbers: a source restarts its numbering with the daemon (a replay starts its
/// recording over), while the times of one producer's messages on one topic do not go back.
/// After a restart, a message at or before its (producer, topic)'s position is one the service
/// already processed, and is skipped; the first message past it ends skipping for that pair,
/// so a live source's occasional late message later on is processed as before.
struct InputPosition {
    struct Mark: Equatable {
        var time: Int64
        /// Messages processed at `time`.
        var count: Int
    }

    /// Where each (producer, topic) is: what the next commit records.
    private(set) var marks: [String: Mark] = [:]
    /// Keys whose mark changed since `takeChanged`.
    private var changed: Set<String> = []
    /// The committed marks still being skipped up to, after a restart.
    private var skipping: [String: Mark] = [:]
    /// Messages seen at the skipped mark's time so far, per key.
    private var seenAtMark: [String: Int] = [:]

    static func key(producer: String, topic: String) -> String { producer + " " + topic }

    /// Starts from committed marks: messages up to them are skipped.
    init(committed: [String: Mark] = [:]) {
        marks = committed
        skipping = committed
    }

    /// True when `message` was processed before the restart: skip it.
    mutating func alreadyProcessed(_ message: BusMessage) -> Bool {
        guard !skipping.isEmpty else { return false }
        let key = Self.key(producer: message.envelope.producer, topic: message.topic)
        guard let mark = skipping[key] else { return false }
        let t = message.time.milliseconds
        if t < mark.time { return true }
        if t == mark.time {
            let seen = (seenAtMark[key] ?? 0) + 1
            seenAtMark[key] = seen
            if seen <= mark.count { return true }
        }
        skipping[key] = nil
        seenAtMark[key] = nil
        return false
    }

    /// Records that `message` was processed.
    mutating func processed(_ message: BusMessage) {
        let key = Self.key(producer: message.envelope.producer, topic: message.topic)
        let t = message.time.milliseconds
        if let mark = marks[key] {
            if t == mark.time {
                marks[key]!.count += 1
            } else if t > mark.time {
                marks[key] = Mark(time: t, count: 1)
            } else {
                // A late message: the mark stays at the later time (everything before it was seen).
                return
            }
        } else {
            marks[key] = Mark(time: t, count: 1)
        }
        changed.insert(key)
    }

    /// The marks changed since the last call.
    mutating func takeChanged() -> [(key: String, mark: Mark)] {
        defer { changed.removeAll(keepingCapacity: true) }
        return changed.map { ($0, marks[$0]!) }
    }

    /// A mark as stored: `[time, count]`.
    static func text(_ mark: Mark) -> String { "[\(mark.time),\(mark.count)]" }

    static func mark(fromText text: String) -> Mark? {
        let parts = text.dropFirst().dropLast().split(separator: ",")
        guard text.hasPrefix("["), text.hasSuffix("]"), parts.count == 2,
              let time = Int64(parts[0]), let count = Int(parts[1]), count >= 0 else { return nil }
        return Mark(time: time, count: count)
    }
}
