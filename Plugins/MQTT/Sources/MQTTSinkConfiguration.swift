import LocusCore

/// Options of the `mqtt` sink.
public struct MQTTSinkConfiguration: DeclaredConfiguration {
    /// host, port, protocol, credentials, TLS, keepalive and reconnect delays: the keys the
    /// `mqtt` source and sink share.
    public var connection = MQTTConnectionSettings()

    @Setting("topics", "Locus topic prefixes to forward; \"\" forwards everything not in exclude.", check: .topicPrefixes())
    public var topics: [String] = [""]

    @Setting("exclude", "Topic prefixes never forwarded (raw observations and clock ticks by default).", check: .topicPrefixes())
    public var exclude: [String] = ["obs.", "clock."]

    @Setting("device", "This device's name in MQTT topics (one topic level: no '/', '+', '#').", default: "the host name")
    public var device: String? = nil

    @Setting("topic_template", "MQTT topic of each event: {device}, {topic} (the Locus topic with '.' as '/'), {producer}.")
    public var topicTemplate: String = "locus/{device}/{topic}"

    @Setting("qos", "MQTT quality of service: 0 at most once, 1 at least once, 2 exactly once (per hop).", check: .within(0...2))
    public var qos: Int = 1

    @Setting("retain", "Topic prefixes published retained, so a new subscriber sees the present at once (state and last location).",
             check: .topicPrefixes())
    public var retain: [String] = ["region.state.", "region.condition.", "beacon.state.", "location.update."]

    @Setting("client_id", "MQTT client id; must be unique on the broker.", default: "locus-<device>-<id>")
    public var clientId: String? = nil

    @Setting("status_topic", "Retained online/offline status of this device ({device} as above); also the last will. Empty = none.")
    public var statusTopic: String = "locus/{device}/status"

    @Setting("max_inflight", "Messages sent and not yet acknowledged by the broker at most.", check: .within(1...65535))
    public var maxInflight: Int = 100

    @Setting("queue_limit", "Messages of topics the journal does not take held while the broker is away; more are dropped and counted.",
             check: .atLeast(0))
    public var queueLimit: Int = 10_000

    @Setting("max_payload_bytes", "Largest message sent; larger ones are skipped and counted (match the broker's message_size_limit).",
             check: .within(64...268_435_455))
    public var maxPayloadBytes: Int = 262_144

    @Setting("format", "Message format: locus (the envelope as on the bus) or owntracks (OwnTracks JSON, for Home Assistant and OwnTracks Recorder).")
    public var format: Format = .locus

    @Setting("owntracks_topic", "With format owntracks: base topic of locations; transitions go to <base>/event. {device} as above.")
    public var ownTracksTopic: String = "owntracks/locus/{device}"

    @Setting("tracker_id", "With format owntracks: the two-character tid shown on maps.", default: "the device's first two characters")
    public var trackerId: String? = nil

    @Setting("unknown_accuracy", "With format owntracks: acc (metres) sent for a fix without h_accuracy (consumers drop acc 0 or missing).",
             check: .within(1...100_000))
    public var unknownAccuracy: Int = 100

    /// What the sink publishes for each event.
    public enum Format: String, Sendable, Equatable, CaseIterable, SettingValue {
        case locus, owntracks
    }

    @Setting("start", "Where a first run (no saved position) starts in the journal: end (only new events) or oldest.")
    public var start: StartPoint = .end

    /// Where a sink without a saved position starts reading the journal.
    public enum StartPoint: String, Sendable, Equatable, CaseIterable, SettingValue {
        case end, oldest
    }

    public init() {}
}

extension MQTTSinkConfiguration {
    public func validate() throws {
        if let device, let problem = MQTTTopicTemplate.problem(inLevel: device) {
            throw ConfigValueError(key: "device", "'\(device)' \(problem)")
        }
        for (key, template) in [("topic_template", topicTemplate), ("status_topic", statusTopic), ("owntracks_topic", ownTracksTopic)]
        where !template.isEmpty {
            if let problem = MQTTTopicTemplate.problem(inTemplate: template) { throw ConfigValueError(key: key, problem) }
        }
    }
}
