import LocusCore
import LocusFormats

/// Options of the `nats` source: positions of many devices from a JetStream stream.
public struct NATSSourceConfiguration: DeclaredConfiguration {
    public var server = NATSServerSettings()

    @Setting("stream", "JetStream stream holding the positions; created (on disk, for subjects) when missing.")
    public var stream: String = "LOCUS_FIXES"

    @Setting("subjects", "Subjects of the stream, when this source creates it.")
    public var subjects: [String] = ["owntracks.>"]

    @Setting("filter", "Subject filter of the messages read (wildcards * and >).")
    public var filter: String = "owntracks.>"

    @Setting("format", "Message format: owntracks (OwnTracks JSON, from phones through NATS's MQTT port) or locus (envelopes of another Locus's sink).")
    public var format: IncomingLocation.Format = .owntracks

    @Setting("device_tokens", "Subject tokens (0 = first) whose values, joined by '-', name the device: owntracks.<user>.<device> → [1, 2].")
    public var deviceTokens: [Int] = [1, 2]

    @Setting("start", "Where reading starts: new (messages stored from now on) or all (the oldest the stream holds). In a group: where a partition with no position starts, when the group first takes it.")
    public var start: StartPoint = .new

    /// Where the source starts reading its stream.
    public enum StartPoint: String, Sendable, Equatable, CaseIterable, SettingValue {
        case new, all
    }

    @Setting("replicas", "Copies of a stream this source creates: 1, or 3 on a cluster that must survive losing a server.", check: .within(1...5))
    public var replicas: Int = 1

    @Setting("max_devices", "Devices tracked at most; fixes of further devices are dropped and counted.", check: .atLeast(1))
    public var maxDevices: Int = 100_000

    @Setting("max_rate", "Fixes per second per device at most (a device flooding its subject); 0 = no limit.", check: .atLeast(0))
    public var maxRate: Double = 10

    @Setting("batch", "Messages fetched per request.", check: .within(1...10_000))
    public var batch: Int = 256

    @Setting("group", "Servers with the same group split the fleet's partitions between them by lease, and take over a dead server's; empty = read every message.")
    public var group: String = ""

    @Setting("partitions", "Partitions of the fleet (with group): a device's is FNV-1a-32(device id) mod partitions, in the subject token partition_token.",
             check: .within(1...4096))
    public var partitions: Int = 64

    @Setting("partition_token", "With group: the subject token (0 = first) holding the partition number; filter has * there.", check: .within(0...31))
    public var partitionToken: Int = 2

    @Setting("lease_ttl", "With group: seconds a partition stays a server's without renewal; a dead server's partitions are taken within about twice this after it died (1 to 5/3 of it after its last renewal, plus the rounds' own time).",
             check: .within(1...600))
    public var leaseTTL: Double = 10

    @Setting("member", "With group: this server's name in the group; unique per server.", default: "<host name>-<id>")
    public var member: String? = nil

    @Setting("checkpoint_interval", "With group: seconds between writes of how far each partition was read, with its devices' service state.", check: .within(0.1...600))
    public var checkpointInterval: Double = 1

    public init() {}

    /// `filter` for one partition: its `partition_token` token replaced by the number.
    func filter(partition p: Int) -> String {
        var tokens = filter.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if partitionToken < tokens.count { tokens[partitionToken] = String(p) }
        return tokens.joined(separator: ".")
    }

    public func validate() throws {
        if !group.isEmpty {
            if let problem = NATSSubject.problem(inName: group) { throw ConfigValueError(key: "group", "'\(group)' \(problem)") }
            let tokens = filter.split(separator: ".", omittingEmptySubsequences: false)
            guard partitionToken < tokens.count, tokens[partitionToken] == "*" else {
                throw ConfigValueError(key: "partition_token", "filter '\(filter)' needs * at token \(partitionToken) (0 = first), where the partition number is: e.g. locus.fixes.*.>")
            }
        }
        if let problem = NATSSubject.problem(inName: stream) { throw ConfigValueError(key: "stream", "'\(stream)' \(problem)") }
        if subjects.isEmpty { throw ConfigValueError(key: "subjects", "needs at least one subject") }
        for subject in subjects + [filter] {
            if let problem = NATSSubject.problem(inFilter: subject) {
                throw ConfigValueError(key: subject == filter ? "filter" : "subjects", "'\(subject)' \(problem)")
            }
        }
        if deviceTokens.isEmpty || deviceTokens.contains(where: { $0 < 0 || $0 > 31 }) {
            throw ConfigValueError(key: "device_tokens", "needs one or more subject tokens between 0 and 31")
        }
    }
}

extension NATSSubject {
    /// A subject filter: tokens separated by '.', none empty; `*` a whole token, `>` the last one.
    static func problem(inFilter text: String) -> String? {
        guard !text.isEmpty else { return "is empty" }
        let tokens = text.split(separator: ".", omittingEmptySubsequences: false)
        for (i, token) in tokens.enumerated() {
            if token.isEmpty { return "has an empty token (two dots, or a dot at an end)" }
            if token.contains(where: { $0.isWhitespace }) { return "holds whitespace" }
            if token.contains(">") && (token != ">" || i != tokens.count - 1) { return "may hold > only as its whole last token" }
            if token.contains("*") && token != "*" { return "may hold * only as a whole token" }
        }
        return nil
    }
}
