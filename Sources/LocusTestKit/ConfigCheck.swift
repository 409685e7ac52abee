import Foundation
import LocusCore
import LocusRuntime
import Logging

/// Runs a configuration text through the loader `locus check` uses, with `plugins` as the
/// known plugin types: for testing that a plugin's keys are decoded, defaulted and refused as
/// users will see them.
public enum ConfigCheck {
    /// The errors `locus check` would print for `yaml` (as `config.yaml:LINE:COL: error: …`
    /// lines), or an empty list when it is valid. Only the services and sinks sections are
    /// checked when `servicesOnly` (as `locus replay` does), so a test needs no source.
    public static func errors(_ yaml: String, plugins: [PluginFactory], servicesOnly: Bool = true) throws -> [String] {
        let dir = NSTemporaryDirectory() + "locus-config-check-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/config.yaml"
        try Data(yaml.utf8).write(to: URL(fileURLWithPath: path))
        let logger = Logger(label: "config-check") { _ in SwiftLogNoOpLogHandler() }
        do {
            _ = try ConfigLoader(factories: plugins, logger: logger).load(path: path, mode: servicesOnly ? .servicesOnly : .full)
            return []
        } catch let errors as ConfigErrors {
            return errors.errors.map { e in
                var e = e
                e.file = "config.yaml"
                return e.description
            }
        }
    }
}
