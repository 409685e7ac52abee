import LocusCore

/// What the journal takes and keeps (`hub.journal_*`, docs/protocol.md 13.1).
public struct JournalSettings: Sendable, Equatable {
    /// Topic prefixes journaled; empty = every topic not excluded.
    public var topics: [String]
    /// Topic prefixes never journaled (checked first).
    public var exclude: [String]
    /// Whole segments are deleted, oldest first, while the journal is larger than this.
    public var maxBytes: Int64
    /// … or while their last record is older than this many seconds.
    public var maxAge: Double
    /// A segment is closed once it reaches this size.
    public var segmentBytes: Int64

    public static let defaultExclude = ["obs.", "clock."]
    public static let defaultMaxBytes: Int64 = 256 << 20
    public static let defaultMaxAge = 7 * 86_400.0
    public static let defaultSegmentBytes: Int64 = 8 << 20

    public init(topics: [String] = [], exclude: [String] = JournalSettings.defaultExclude,
                maxBytes: Int64 = JournalSettings.defaultMaxBytes, maxAge: Double = JournalSettings.defaultMaxAge,
                segmentBytes: Int64 = JournalSettings.defaultSegmentBytes) {
        self.topics = topics
        self.exclude = exclude
        self.maxBytes = maxBytes
        self.maxAge = maxAge
        self.segmentBytes = segmentBytes
    }

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
