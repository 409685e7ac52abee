import LocusConditions
import LocusCore
import LocusRegions

/// Registration of the `region` service.
public enum RegionPlugin {
    public static let factory = PluginFactory.service(
        "region",
        summary: "Geofences: circles and polygons (config, a watched GeoJSON file, locus ctl region add) with hysteresis; region.enter/exit/dwell/state (and region.condition definitions), state kept across restarts.",
        config: RegionConfiguration.self,
        payloadTypes: [RegionEnter.self, RegionExit.self, RegionDwell.self, RegionStateSnapshot.self, RegionConditionEvent.self]
    ) { config, setup in
        try RegionService(id: setup.id, configuration: config, setup: setup, logger: setup.logger)
    }
}
