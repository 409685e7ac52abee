/// Where the daemon's journal is and which topics it takes (docs/protocol.md 13.1), for a
/// plugin that forwards events off the device and must not lose them while its destination is
/// away (the `mqtt` sink): it reads the journal from its own saved position instead of relying
/// on the live stream alone.
public struct JournalLocation: Sendable, Equatable {
    /// The journal's directory (segment files), written by the hub before it forwards a message.
    public var directory: String
    /// Topic prefixes the journal takes; empty = every topic not in `exclude`.
    public var topics: [String]
    /// Topic prefixes the journal never takes.
    public var exclude: [String]

    public init(directory: String, topics: [String], exclude: [String]) {
        self.directory = directory
        self.topics = topics
        self.exclude = exclude
    }

    /// True if a message on `topic` is written to the journal.
    public func takes(_ topic: String) -> Bool {
        if exclude.contains(where: { topic.hasPrefix($0) }) { return false }
        return topics.isEmpty || topics.contains(where: { topic.hasPrefix($0) })
    }
}
