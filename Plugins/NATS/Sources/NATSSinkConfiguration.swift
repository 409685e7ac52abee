import LocusCore

/// Options of the `nats` sink: events to a JetStream stream.
public struct NATSSinkConfiguration: DeclaredConfiguration {
    public var server = NATSServerSettings()

    @Setting("topics", "Locus topic prefixes to send; \"\" sends everything not in exclude.", check: .topicPrefixes())
    public var topics: [String] = [""]

    @Setting("exclude", "Topic prefixes never sent (raw observations and clock ticks by default).", check: .topicPrefixes())
    public var exclude: [String] = ["obs.", "clock."]

    @Setting("subject_prefix", "Each event goes to <subject_prefix>.<Locus topic>.")
    public var subjectPrefix: String = "locus.events"

    @Setting("stream", "JetStream stream that stores the events; created (on disk, for <subject_prefix>.>) when missing.")
    public var stream: String = "LOCUS_EVENTS"

    @Setting("replicas", "Copies of a stream this sink creates: 1, or 3 on a cluster that must survive losing a server.", check: .within(1...5))
    public var replicas: Int = 1

    @Setting("duplicate_window", "Seconds the stream this sink creates remembers message ids: a repeat within it is stored once, a later one again; keep it above 2 × lease_ttl + checkpoint_interval of the group's sources.",
             check: .within(1...86_400))
    public var duplicateWindow: Double = 120

    @Setting("queue_limit", "Events held while NATS is away; more are dropped and counted.", check: .atLeast(1))
    public var queueLimit: Int = 10_000

    @Setting("max_payload_bytes", "Largest event sent; larger ones are skipped and counted (NATS's max_payload is 1 MB by default).",
             check: .within(64...67_108_864))
    public var maxPayloadBytes: Int = 1_048_576

    public init() {}

    public func validate() throws {
        if let problem = NATSSubject.problem(inPrefix: subjectPrefix) { throw ConfigValueError(key: "subject_prefix", "'\(subjectPrefix)' \(problem)") }
        if let problem = NATSSubject.problem(inName: stream) { throw ConfigValueError(key: "stream", "'\(stream)' \(problem)") }
    }
}

/// What NATS accepts in subjects and stream names.
enum NATSSubject {
    /// A subject prefix: tokens separated by '.', none empty, no wildcard or whitespace.
    static func problem(inPrefix text: String) -> String? {
        guard !text.isEmpty else { return "is empty" }
        for token in text.split(separator: ".", omittingEmptySubsequences: false) {
            if token.isEmpty { return "has an empty token (two dots, or a dot at an end)" }
            if token == "*" || token == ">" { return "holds a wildcard" }
            if token.contains(where: { $0.isWhitespace }) { return "holds whitespace" }
        }
        return nil
    }

    /// A stream or bucket name: letters, digits, '-' and '_'.
    static func problem(inName text: String) -> String? {
        guard !text.isEmpty else { return "is empty" }
        let ok = text.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" }
        return ok ? nil : "may hold only letters, digits, '-' and '_'"
    }
}
