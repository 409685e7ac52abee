import LocusCore

/// Registration of the `standard` location service.
public enum StandardPlugin {
    public static let factory = PluginFactory.service(
        "standard",
        summary: "Standard location service: the best current location from one or more fix sources, with distance and time filters, stationary detection and diagnostics.",
        config: StandardConfiguration.self,
        payloadTypes: [LocationUpdate.self, LocationPaused.self, LocationResumed.self, LocationStatus.self]
    ) { config, setup in
        StandardService(id: setup.id, configuration: config)
    }
}
