import Foundation
import LocusCore

public enum ReplayPlugin {
    public static let factory = PluginFactory.source(
        "replay",
        summary: "Plays a Locus recording, NMEA log, gpsd JSON log or GPX file onto the bus, ticking the clock in recorded time.",
        config: ReplayConfiguration.self
    ) { config, setup in
        let path = setup.resolvePath(config.file)
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ConfigValueError(key: "file", "recording '\(config.file)' not found or not readable (looked at \(path))")
        }
        guard ReplaySource.format(of: path, configured: config.format) != nil else {
            throw ConfigValueError(key: "format", "cannot tell the format of '\(config.file)' from its first 64 KiB (no NMEA sentence, gpsd or Locus JSON line or GPX header); set format: locus, nmea, gpsd or gpx")
        }
        return ReplaySource(configuration: config, path: path, pluginID: setup.id, stateDirectory: setup.stateDirectory)
    }
}
