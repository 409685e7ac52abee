import LocusCore

/// Options of the `significant-change` service (issue 4: being built; no keys yet).
public struct SignificantChangePluginConfiguration: PluginConfiguration {
    public static let keys: [ConfigKey] = []
    public init() {}
}

/// Registration of the `significant-change` service. Placeholder while the service is being written: it
/// subscribes to nothing and publishes nothing.
public enum SignificantChangePlugin {
    public static let factory = PluginFactory.service(
        "significant-change",
        summary: "Significant-change service (not yet implemented).",
        config: SignificantChangePluginConfiguration.self
    ) { _, _ in PlaceholderService() }
}

struct PlaceholderService: ServicePlugin {
    var subscriptions: [String] { [] }
    var produces: [String] { [] }
    mutating func receive(_ message: BusMessage, output: inout ServiceOutput) {}
}
