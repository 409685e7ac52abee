import LocusBeaconService
import LocusBLESource
import LocusConsoleSink
import LocusCore
import LocusExampleSpeedAlert
import LocusExec
import LocusFileSink
import LocusGpsdSource
import LocusNMEASerialSource
import LocusRegionService
import LocusReplay
import LocusSignificantChangeService
import LocusStandardService
import LocusVisitsService

/// Every plugin type built into Locus: the one list the runtime and `locus plugins` read.
/// A new plugin folder under `Plugins/` is added here (a test checks that none is missing).
public enum BuiltinPlugins {
    public static let all: [PluginFactory] = [
        ReplayPlugin.factory,
        GpsdPlugin.factory,
        NMEASerialPlugin.factory,
        BLEPlugin.factory,
        ExecPlugin.factory,
        StandardPlugin.factory,
        SignificantChangePlugin.factory,
        VisitsPlugin.factory,
        RegionPlugin.factory,
        BeaconPlugin.factory,
        ExampleSpeedAlertPlugin.factory,
        ConsolePlugin.factory,
        FileSinkPlugin.factory,
    ]

    /// Plugin folder → factory type, for the completeness test.
    public static let folders: [String: String] = [
        "Replay": "replay",
        "Gpsd": "gpsd",
        "NMEASerial": "nmea-serial",
        "BLE": "ble",
        "Exec": "exec",
        "Standard": "standard",
        "SignificantChange": "significant-change",
        "Visits": "visits",
        "Region": "region",
        "Beacon": "beacon",
        "ExampleSpeedAlert": "example-speed-alert",
        "Console": "console",
        "File": "file",
    ]

    /// Core event types plus those the built-in plugins define.
    public static var payloadRegistry: PayloadRegistry { payloadRegistry(for: all) }

    /// Core event types plus those `plugins` define.
    public static func payloadRegistry(for plugins: [PluginFactory]) -> PayloadRegistry {
        var r = PayloadRegistry.core
        for f in plugins { for t in f.payloadTypes { r.register(t) } }
        return r
    }
}
