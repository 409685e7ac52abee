import LocusCore

/// Options of the `standard` service (issue 4: being built; no keys yet).
public struct StandardPluginConfiguration: PluginConfiguration {
    public static let keys: [ConfigKey] = []
    public init() {}
}

/// Registration of the `standard` service. Placeholder while the service is being written: it
/// subscribes to nothing and publishes nothing.
public enum StandardPlugin {
    public static let factory = PluginFactory.service(
        "standard",
        summary: "Standard location service (not yet implemented).",
        config: StandardPluginConfiguration.self
    ) { _, _ in PlaceholderService() }
}

struct PlaceholderService: ServicePlugin {
    var subscriptions: [String] { [] }
    var produces: [String] { [] }
    mutating func receive(_ message: BusMessage, output: inout ServiceOutput) {}
}
