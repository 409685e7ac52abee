import Foundation
import LocusCore
import LocusPlugins

/// The plugin types this binary knows: the built-in ones unless `Locus.main(plugins:)` was
/// given others. Set once before any command runs; read by every command that loads a config.
enum ActivePlugins {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var factories: [PluginFactory] = BuiltinPlugins.all

    static func set(_ plugins: [PluginFactory]) {
        lock.lock()
        factories = plugins
        lock.unlock()
    }

    static var all: [PluginFactory] {
        lock.lock()
        defer { lock.unlock() }
        return factories
    }

    /// Core event types plus those the active plugins define.
    static var payloadRegistry: PayloadRegistry { BuiltinPlugins.payloadRegistry(for: all) }
}
