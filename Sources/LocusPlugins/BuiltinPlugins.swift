import LocusBeaconPlugin
import LocusBLEPlugin
import LocusConsolePlugin
import LocusCore
import LocusExampleSpeedAlertPlugin
import LocusExecPlugin
import LocusFilePlugin
import LocusGpsdPlugin
import LocusGpsdServerPlugin
import LocusMQTTPlugin
import LocusNATSPlugin
import LocusNMEASerialPlugin
import LocusRegionPlugin
import LocusReplayPlugin
import LocusSignificantChangePlugin
import LocusStandardPlugin
import LocusVisitsPlugin
import LocusWebPlugin

/// Every plugin type built into Locus: the one list the runtime and `locus plugins` read.
/// A new plugin folder under `Plugins/` (with its `plugin.json`, from which Package.swift makes
/// its target) is added here: its import and its factory. A test names a folder missing here.
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
        MQTTPlugin.factory,
        NATSPlugin.factory,
        WebPlugin.factory,
        GpsdServerPlugin.factory,
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
