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
    /// The key inserted into `changed` last (a run of messages inserts it once).
    private var lastChanged: String?
    /// The committed marks still being skipped up to, after a restart.
    private var skipping: [String: Mark] = [:]
    /// Messages seen at the skipped mark's time so far, per key.
    private var seenAtMark: [String: Int] = [:]

    /// Per producer, the keys of its committed marks whose last message has not been skipped yet:
    /// when the last one is, this run has caught up with where the earlier run stopped.
    private var unreached: [String: Set<String>] = [:]
    /// Messages skipped per producer since the start.
    private var skippedCount: [String: UInt64] = [:]
    /// What `takeSkipReports` hands out.
    private var reports: [SkipReport] = []

    /// Once per producer whose messages were skipped after a restart: how many, and whether this
    /// run reached exactly the last message the earlier run had handled (`caughtUp`; nothing
    /// after it yet: a replay of the same file ends here) or went past it (new messages follow).
    struct SkipReport: Equatable {
        var producer: String
        var skipped: UInt64
        var caughtUp: Bool
    }

    /// True when a report waits for `takeSkipReports`.
    var hasSkipReports: Bool { !reports.isEmpty }

    mutating func takeSkipReports() -> [SkipReport] {
        defer { reports.removeAll() }
        return reports
    }

    /// The last (producer, topic) seen and its key: a feed's messages come in long runs from
    /// one pair, so the key is built once per run rather than once per message.
    private var lastPair: (producer: String, topic: String, key: String)?

    static func key(producer: String, topic: String) -> String { producer + " " + topic }

    private mutating func key(of message: BusMessage) -> String {
        let producer = message.envelope.producer, topic = message.topic
        if let p = lastPair, p.producer == producer, p.topic == topic { return p.key }
        let key = Self.key(producer: producer, topic: topic)
        lastPair = (producer, topic, key)
        return key
    }

    /// Starts from committed marks: messages up to them are skipped.
    init(committed: [String: Mark] = [:]) {
        marks = committed
        skipping = committed
        for key in committed.keys { unreached[Self.producer(ofKey: key), default: []].insert(key) }
    }

    static func producer(ofKey key: String) -> String {
        key.firstIndex(of: " ").map { String(key[..<$0]) } ?? key
    }

    /// `key`'s committed mark was reached: its last message skipped (`exactly`), or a message
    /// past it came. Reports the producer once: at the first message past a mark, or when
    /// every mark of it was reached exactly.
    private mutating func reached(_ key: String, exactly: Bool) {
        let producer = Self.producer(ofKey: key)
        guard var keys = unreached[producer], keys.remove(key) != nil else { return }
        unreached[producer] = keys
        guard !exactly || keys.isEmpty else { return }
        unreached[producer] = nil
        let skipped = skippedCount[producer] ?? 0
        if skipped > 0 { reports.append(SkipReport(producer: producer, skipped: skipped, caughtUp: exactly)) }
    }

    private mutating func countSkipped(_ key: String) {
        skippedCount[Self.producer(ofKey: key), default: 0] += 1
    }

    /// True when `message` was processed before the restart: skip it.
    mutating func alreadyProcessed(_ message: BusMessage) -> Bool {
        guard !skipping.isEmpty else { return false }
        let key = key(of: message)
        guard let mark = skipping[key] else { return false }
        let t = message.time.milliseconds
        if t < mark.time {
            countSkipped(key)
            return true
        }
        if t == mark.time {
            let seen = (seenAtMark[key] ?? 0) + 1
            seenAtMark[key] = seen
            if seen <= mark.count {
                countSkipped(key)
                if seen == mark.count { reached(key, exactly: true) }
                return true
            }
        }
        skipping[key] = nil
        seenAtMark[key] = nil
        reached(key, exactly: false)
        return false
    }

    /// Records that `message` was processed.
    mutating func processed(_ message: BusMessage) {
        let key = key(of: message)
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
        if key != lastChanged {
            changed.insert(key)
            lastChanged = key
        }
    }

    /// The marks changed since the last call.
    mutating func takeChanged() -> [(key: String, mark: Mark)] {
        defer {
            changed.removeAll(keepingCapacity: true)
            lastChanged = nil
        }
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
