import LocusCore

/// The hub's own keys of `hub:` in config.yaml, declared once: the config loader reads and
/// checks them here (`HubBlock` holds this group) and the hub takes them as they are
/// (`HubConfiguration.limits`).
public struct HubLimits: SettingGroup, Equatable {
    public static let maxMessageBytesRange = 1024...(64 * 1024 * 1024)

    @Setting("max_message_bytes", "Largest body the hub forwards; larger ones are dropped and counted as too_large.",
             check: .bytes(HubLimits.maxMessageBytesRange))
    public var maxMessageBytes: Int = PluginSetup.defaultMaxMessageBytes

    /// A subscriber that falls this far behind loses messages (PUB/SUB semantics); the hub
    /// itself never waits for a slow subscriber.
    @Setting("high_water_mark", "Messages ZeroMQ queues per connection on each side of the hub; 0 = unlimited.",
             check: SettingCheck { $0 >= 0 ? nil : "must be 0 (unlimited) or more, found \($0)" })
    public var highWaterMark: Int = 100_000

    /// Off by default: the hub then checks the envelope header, the payload's JSON grammar and
    /// that the type is known, and subscribers count payloads that do not decode.
    @Setting("validate_payloads", "Also decode payloads at the hub and drop those wrong for their type (bad_payload); about 4x the hub's CPU.")
    public var validatePayloads: Bool = false

    @Setting("ingest_rate_per_client", "Messages per second one outside publisher connection may send on average (bursts of twice that); more are dropped and counted as rate_limit. 0 = no limit (ZeroMQ's high-water mark still makes a fast publisher wait).",
             check: .within(0...100_000_000))
    public var ingestRatePerClient: Double = 0

    /// `max_subscriptions_per_client` and the three other subscription keys.
    public var subscriptions = SubscriptionLimits()

    public init() {}
}

/// The control socket's keys of `hub:`, declared once; `ControlServer` takes them as they are.
public struct ControlLimits: SettingGroup, Equatable {
    public static let maxRequestBytesRange = 1024...(64 * 1024 * 1024)

    /// 1 MiB by default: room for a region polygon of ~30,000 vertices.
    @Setting("control_max_request_bytes", "Largest control request answered; larger ones get a too_large error reply.",
             check: .bytes(ControlLimits.maxRequestBytesRange))
    public var maxRequestBytes: Int = 1 << 20

    @Setting("control_requests_per_second", "Control requests one client connection may send per second on average (bursts of twice that); more get a rate_limited error reply. 0 = no limit.",
             check: .within(0...1_000_000))
    public var requestsPerSecond: Double = 20

    public init() {}
}
