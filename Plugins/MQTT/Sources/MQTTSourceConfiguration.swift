import LocusCore
import LocusFormats

/// Options of the `mqtt` source: positions of many devices from a broker.
public struct MQTTSourceConfiguration: DeclaredConfiguration {
    /// How messages are read.
    public typealias Format = IncomingLocation.Format

    /// host, port, protocol, credentials, TLS, keepalive and reconnect delays: the keys the
    /// `mqtt` source and sink share.
    public var connection = MQTTConnectionSettings()

    @Setting("subscribe", "MQTT topic filters to subscribe to.")
    public var subscribe: [String] = ["owntracks/+/+"]

    @Setting("ignore_topics", "MQTT topic filters (+ and # as in subscribe) whose messages are not taken, counted as ignored_topic: what subscribe catches but is not this source's, e.g. the OwnTracks output of this fleet's own Locus devices.")
    public var ignoreTopics: [String] = []

    @Setting("format", "Message format: owntracks (phones) or locus (other Locus instances' envelopes).")
    public var format: Format = .owntracks

    @Setting("device_levels", "Topic levels (0 = first) whose values, joined by '-', name the device: owntracks/<user>/<device> → [1, 2].")
    public var deviceLevels: [Int] = [1, 2]

    @Setting("share_group", "MQTT 5 shared subscription group: servers with the same group split the devices ($share/<group>/…). Empty = none.")
    public var shareGroup: String = ""

    @Setting("session_expiry", "Seconds the broker keeps this client's session (subscriptions and QoS 1/2 messages) while Locus is away; 0 = a clean session each time.", check: .within(0...4_294_967_295))
    public var sessionExpiry: Int = 0

    @Setting("partition", "Take only the devices of one partition, \"i/n\": FNV-1a-32(device id) mod n == i; the others are ignored (counted). Empty = all devices.")
    public var partition: String = ""

    @Setting("qos", "MQTT quality of service of the subscriptions.", check: .within(0...2))
    public var qos: Int = 1

    @Setting("max_devices", "Devices tracked at most; fixes of further devices are dropped and counted.", check: .atLeast(1))
    public var maxDevices: Int = 100_000

    @Setting("max_rate", "Fixes per second per device at most (a device flooding its topic); 0 = no limit.", check: .atLeast(0))
    public var maxRate: Double = 10

    @Setting("client_id", "MQTT client id; must be unique on the broker.", default: "locus-<host name>-<id>")
    public var clientId: String? = nil

    public init() {}

    public func validate() throws {
        if subscribe.isEmpty { throw ConfigValueError(key: "subscribe", "needs at least one topic filter") }
        for filter in subscribe where filter.isEmpty || filter.hasPrefix("$share/") {
            throw ConfigValueError(key: "subscribe", "'\(filter)': give a plain topic filter (use share_group for shared subscriptions)")
        }
        for filter in ignoreTopics {
            if let problem = MQTTTopicFilter.problem(in: filter) { throw ConfigValueError(key: "ignore_topics", problem) }
        }
        if deviceLevels.isEmpty || deviceLevels.contains(where: { $0 < 0 || $0 > 31 }) {
            throw ConfigValueError(key: "device_levels", "needs one or more topic levels between 0 and 31")
        }
        if !shareGroup.isEmpty {
            if let problem = MQTTTopicTemplate.problem(inLevel: shareGroup) { throw ConfigValueError(key: "share_group", "'\(shareGroup)' \(problem)") }
            if connection.protocolVersion != .v5 { throw ConfigValueError(key: "share_group", "shared subscriptions need protocol: \"5\"") }
        }
        if !partition.isEmpty, Self.parsePartition(partition) == nil {
            throw ConfigValueError(key: "partition", "'\(partition)': give \"i/n\" with whole numbers 0 ≤ i < n, e.g. \"0/2\"")
        }
        if sessionExpiry > 0, clientId?.isEmpty ?? false {
            throw ConfigValueError(key: "client_id", "a session that outlives the connection (session_expiry) needs a client id")
        }
    }

    /// `partition` as (index, count); nil when it is not "i/n" with 0 ≤ i < n.
    static func parsePartition(_ text: String) -> (index: Int, count: Int)? {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let i = Int(parts[0]), let n = Int(parts[1]), n >= 1, i >= 0, i < n else { return nil }
        return (i, n)
    }

    /// The filters as subscribed: with a share group, `$share/<group>/<filter>`.
    var subscriptionFilters: [String] { subscribe.map { shareGroup.isEmpty ? $0 : "$share/\(shareGroup)/\($0)" } }
}
