import ArgumentParser
import Foundation
import LocusCore
import LocusPlugins
import LocusRuntime
import Logging

/// Loading config for the commands that need it, with errors printed as `file:line:col: error: …`.
enum ConfigSupport {
    static let defaultPath = "config.yaml"

    static func load(_ path: String, mode: ConfigLoader.Mode = .full, factories: [PluginFactory] = ActivePlugins.all,
                     logger: Logger) throws -> LocusConfiguration {
        do {
            return try ConfigLoader(factories: factories, logger: logger).load(path: path, mode: mode)
        } catch let errors as ConfigErrors {
            FileHandle.standardError.write(Data((errors.description + "\n").utf8))
            throw ExitCode(ExitStatus.usage)
        }
    }

    /// `load`, then what `run` would refuse before starting anything (`Daemon.preflight`: key
    /// files and their modes, authorized_keys directories, the runtime and state directories):
    /// `check` and `run` both use it, so they refuse the same things with the same message and
    /// exit 2.
    static func loadForRun(_ path: String, logger: Logger) throws -> LocusConfiguration {
        let configuration = try load(path, logger: logger)
        do {
            try Daemon.preflight(configuration)
        } catch {
            FileHandle.standardError.write(Data("\(path): error: \(error)\n".utf8))
            throw ExitCode(ExitStatus.usage)
        }
        return configuration
    }

    static var registry: PayloadRegistry { ActivePlugins.payloadRegistry }

    /// Where the client commands (`ctl`, `sub`, `record`) find `locus run` without --endpoint,
    /// first that applies: the config named with --config; the runtime directory's ipc sockets
    /// when LOCUS_RUNTIME_DIR is set (it names one daemon; a ./config.yaml in the working
    /// directory, a checkout's, may belong to another); ./config.yaml if there is one; the
    /// runtime directory's sockets.
    static func defaultEndpoints(configPath: String?,
                                 environment: [String: String] = ProcessInfo.processInfo.environment) -> HubEndpoints {
        if configPath == nil, let dir = environment["LOCUS_RUNTIME_DIR"], !dir.isEmpty {
            return RuntimePaths.defaultEndpoints(environment: environment)
        }
        let path = configPath ?? defaultPath
        if FileManager.default.fileExists(atPath: path),
           let config = try? ConfigLoader(factories: ActivePlugins.all, logger: Logger(label: "locus.quiet") { _ in SwiftLogNoOpLogHandler() }).load(path: path) {
            return config.endpoints
        }
        return RuntimePaths.defaultEndpoints(environment: environment)
    }
}

enum LogSetup {
    static func bootstrap(level: Logger.Level) {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}

/// Stops a foreground loop on SIGINT/SIGTERM (for `sub` and `record`, which do not run a ServiceGroup).
enum InterruptFlag {
    nonisolated(unsafe) static var raised: sig_atomic_t = 0

    static func install() {
        signal(SIGINT) { _ in InterruptFlag.raised = 1 }
        signal(SIGTERM) { _ in InterruptFlag.raised = 1 }
    }

    static var isRaised: Bool { raised != 0 }
}
