import LocusCore

/// Options of the `visits` service (issue 4: being built; no keys yet).
public struct VisitsPluginConfiguration: PluginConfiguration {
    public static let keys: [ConfigKey] = []
    public init() {}
}

/// Registration of the `visits` service. Placeholder while the service is being written: it
/// subscribes to nothing and publishes nothing.
public enum VisitsPlugin {
    public static let factory = PluginFactory.service(
        "visits",
        summary: "Visits service (not yet implemented).",
        config: VisitsPluginConfiguration.self
    ) { _, _ in PlaceholderService() }
}

struct PlaceholderService: ServicePlugin {
    var subscriptions: [String] { [] }
    var produces: [String] { [] }
    mutating func receive(_ message: BusMessage, output: inout ServiceOutput) {}
}
