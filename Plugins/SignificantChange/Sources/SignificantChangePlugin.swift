import LocusCore

/// Registration of the `significant-change` service.
public enum SignificantChangePlugin {
    public static let factory = PluginFactory.service(
        "significant-change",
        summary: "Significant-change service: publishes location.significant after a move of at least min_distance and min_interval, like Core Location.",
        config: SignificantChangeConfiguration.self,
        payloadTypes: [SignificantLocation.self]
    ) { config, setup in
        SignificantChangeService(id: setup.id, configuration: config)
    }
}
