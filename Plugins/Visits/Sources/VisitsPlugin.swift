import LocusCore

/// Registration of the `visits` service.
public enum VisitsPlugin {
    public static let factory = PluginFactory.service(
        "visits",
        summary: "Detects places where a fix source stays: visit.arrival after min_stay within radius, visit.departure once it has left.",
        config: VisitsConfiguration.self,
        payloadTypes: [VisitArrival.self, VisitDeparture.self]
    ) { config, setup in
        VisitsService(id: setup.id, configuration: config)
    }
}
