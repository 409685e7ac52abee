import LocusBuildInfo
import LocusCore

/// What `locus --version` prints (issue 34 item 4). The release version is
/// `LocusCommand.version`; the commit and build date come from the build (Sources/LocusBuildInfo:
/// every build knows them; "unknown" only when the sources were not a git checkout).
struct VersionReport {
    var version: String
    var commit: String
    var buildDate: String
    /// The event types this binary decodes and their schema versions: the registry the hub
    /// checks messages against, so a binary with more plugin types lists theirs too.
    var registry: PayloadRegistry

    static var current: VersionReport {
        VersionReport(version: LocusCommand.version, commit: BuildInfo.commit,
                      buildDate: BuildInfo.buildDate, registry: ActivePlugins.payloadRegistry)
    }

    /// `locus 0.1.0 (commit abc1234, built 2026-11-28)`.
    var line: String { "locus \(version) (commit \(commit), built \(buildDate))" }

    /// The line, then the bus protocol version (docs/protocol.md, "Protocol versions") and one
    /// line per event type with its payload's schema version (`x-locus-version` in schemas/).
    var verbose: String {
        let types = registry.eventTypes
        let width = types.map(\.count).max() ?? 0
        var lines = [line, "protocol \(BusProtocol.version)", "schemas:"]
        for type in types {
            lines.append("  " + type.padding(toLength: width, withPad: " ", startingAt: 0) + "  \(registry.versions[type]!)")
        }
        return lines.joined(separator: "\n")
    }
}
