import LocusCore

/// The runtime's own keys of `hub:`, declared once where the runtime reads them (`HubBlock` and
/// `HubSettings` hold this group): how plugins' subscriptions are buffered, how often drops and
/// clock ticks are published, and which topics outside programs publish.
public struct RuntimeSettings: SettingGroup, Equatable {
    /// Past it a live source's messages are dropped and counted (`slow_consumer`).
    @Setting("subscription_buffer", "Messages each in-process service or sink subscription holds for its plugin. Sources reading files wait for a plugin that falls behind; live sources' messages past this are dropped and counted (slow_consumer).",
             check: .within(16...10_000_000))
    public var subscriptionBuffer: Int = 100_000

    @Setting("status_interval", "Seconds between two status.drops events at most (one is published only when something was dropped).",
             check: .within(0.1...86_400.0, unit: "seconds"))
    public var statusInterval: Double = 10

    /// Used when no replay source drives the clock.
    @Setting("tick_interval", "Seconds between wall-clock clock.tick messages.", check: .within(0.01...3600.0, unit: "seconds"))
    public var tickInterval: Double = 1

    /// So that subscriptions to them validate.
    @Setting("external_topics", "Topic prefixes published by programs Locus does not start, so subscriptions to them pass locus check.",
             check: .topicPrefixes())
    public var externalTopics: [String] = []

    public init() {}
}
