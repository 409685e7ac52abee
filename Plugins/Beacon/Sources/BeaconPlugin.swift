import LocusConditions
import LocusCore

/// Registration of the `beacon` service.
public enum BeaconPlugin {
    public static let factory = PluginFactory.service(
        "beacon",
        summary: "Beacon regions (iBeacon UUID/major/minor, AltBeacon id prefix, Eddystone-UID namespace/instance; config and locus ctl beacon add): beacon.enter/exit with the refined identity, beacon.range with smoothed distance and proximity, state kept across restarts.",
        config: BeaconConfiguration.self,
        payloadTypes: [BeaconEnter.self, BeaconExit.self, BeaconStateSnapshot.self, BeaconRange.self]
    ) { config, setup in
        try BeaconService(id: setup.id, configuration: config, setup: setup, logger: setup.logger)
    }
}
