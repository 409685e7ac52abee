import LocusCore

/// What the journal takes and keeps (`hub.journal_*`, docs/protocol.md 13.1): the keys of
/// `hub:` declared once, where the journal reads them (`HubBlock` holds this group).
public struct JournalSettings: SettingGroup, Equatable {
    @Setting("journal_topics", "Topic prefixes the journal takes; empty = every topic not in journal_exclude.", check: .topicPrefixes())
    public var topics: [String] = []

    /// Checked first.
    @Setting("journal_exclude", "Topic prefixes the journal never takes (raw observations and clock ticks by default).", check: .topicPrefixes())
    public var exclude: [String] = ["obs.", "clock."]

    /// Whole segments are deleted, oldest first, while the journal is larger than this.
    @Setting("journal_max_bytes", "Largest size of the journal; the oldest segments are deleted past it.",
             check: .bytes((1 << 20)...(1 << 40)))
    public var maxBytes: Int = 256 << 20

    /// … or while their last record is older than this many seconds.
    @Setting("journal_max_age", "Seconds a journal segment is kept after its last record.",
             check: .within(60.0...(10 * 365 * 86_400.0), unit: "seconds"))
    public var maxAge: Double = 7 * 86_400

    @Setting("journal_segment_bytes", "Size at which a journal segment file is closed and a new one started.",
             check: .bytes((64 << 10)...(1 << 30)))
    public var segmentBytes: Int = 8 << 20

    public init() {}

    /// True if `topic` is journaled under these settings.
    public func takes(_ topic: String) -> Bool {
        let matcher = JournalTopicMatcher(self)
        return Array(topic.utf8).withUnsafeBytes { matcher.takes($0) }
    }
}

/// `JournalSettings`' prefixes as bytes, for the hub thread.
struct JournalTopicMatcher {
    let include: [[UInt8]]
    let exclude: [[UInt8]]

    init(_ settings: JournalSettings) {
        include = settings.topics.map { Array($0.utf8) }
        exclude = settings.exclude.map { Array($0.utf8) }
    }

    func takes(_ topic: UnsafeRawBufferPointer) -> Bool {
        for p in exclude where Topic.hasPrefix(topic, p) { return false }
        if include.isEmpty { return true }
        for p in include where Topic.hasPrefix(topic, p) { return true }
        return false
    }
}
