import LocusCore

/// What a Locus binary needs to know the `odometer` type: pass `OdometerPlugin.factory` to
/// `Locus.main(plugins:)`.
public enum OdometerPlugin {
    public static let factory = PluginFactory.service(
        "odometer",
        summary: "Example out-of-tree service: publishes example.odometer every so many metres a fix source travels.",
        config: OdometerConfiguration.self,
        payloadTypes: [OdometerReading.self]
    ) { config, setup in
        OdometerService(id: setup.id, configuration: config)
    }
}
