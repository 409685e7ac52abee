import Foundation
import LocusCore

public enum ReplayPlugin {
    public static let factory = PluginFactory.source(
        "replay",
        summary: "Plays a Locus recording (locus record output) onto the bus, ticking the clock in recorded time.",
        config: ReplayConfiguration.self
    ) { config, setup in
        let path = setup.resolvePath(config.file)
        guard FileManager.default.isReadableFile(atPath: path) else {
            throw ConfigValueError(key: "file", "recording '\(config.file)' not found or not readable (looked at \(path))")
        }
        return ReplaySource(configuration: config, path: path)
    }
}
