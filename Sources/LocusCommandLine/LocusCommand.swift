import ArgumentParser
import Foundation
import LocusCore
import LocusPlugins

/// The whole `locus` command line as a library, for a binary of your own that knows more
/// plugin types than the built-in ones (see `examples/plugin-package` and
/// `docs/writing-plugins.md`):
///
/// ```swift
/// import LocusCommandLine
/// import MyPlugin
/// @main struct Main {
///     static func main() async { await Locus.main(plugins: Locus.builtinPlugins + [MyPlugin.factory]) }
/// }
/// ```
public enum Locus {
    /// Every plugin type built into Locus (`replay`, `gpsd`, `standard`, `region`, …).
    public static var builtinPlugins: [PluginFactory] { BuiltinPlugins.all }

    /// Runs the command line (`run`, `check`, `replay`, `plugins`, …) with `plugins` as the
    /// plugin types configs may use, then exits the process with Locus's exit codes: 0 ok,
    /// 1 runtime failure, 2 usage or config error. Two factories with the same type are a
    /// usage error (exit 2), named on stderr.
    ///
    /// - Parameter arguments: the command line without the program name; nil reads the
    ///   process's own.
    public static func main(plugins: [PluginFactory], arguments: [String]? = nil) async -> Never {
        signal(SIGPIPE, SIG_IGN)
        var seen = Set<String>()
        for factory in plugins where !seen.insert(factory.type).inserted {
            FileHandle.standardError.write(Data("locus: plugin type '\(factory.type)' is registered twice; each plugin type needs a name of its own\n".utf8))
            exit(ExitStatus.usage)
        }
        ActivePlugins.set(plugins)
        do {
            var command = try LocusCommand.parseAsRoot(arguments)
            if !(command is LocusCommand) {
                try LocusCommand.refuseOwnFlags(after: arguments ?? Array(CommandLine.arguments.dropFirst()))
            }
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
            exit(ExitStatus.ok)
        } catch let code as ExitCode {
            exit(code.rawValue)
        } catch {
            let exitCode = LocusCommand.exitCode(for: error)
            if exitCode == .success {
                LocusCommand.exit(withError: error) // --help, --version
            }
            let message = LocusCommand.fullMessage(for: error)
            if !message.isEmpty { FileHandle.standardError.write(Data((message + "\n").utf8)) }
            exit(exitCode == .validationFailure ? ExitStatus.usage : ExitStatus.failure)
        }
    }
}

enum ExitStatus {
    static let ok: Int32 = 0
    /// Something failed at run time: a bind error, an unreachable daemon, a write error.
    static let failure: Int32 = 1
    /// The command line or the configuration is wrong.
    static let usage: Int32 = 2
}

struct LocusCommand: AsyncParsableCommand {
    /// The release version. debian/changelog's newest entry must say the same (`make deb` checks).
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "locus",
        abstract: "A location event bus for Linux: GNSS, geofences, visits and beacons as typed events over ZeroMQ.",
        discussion: """
        Sources (GPS receivers, gpsd, Bluetooth scanners, recordings) publish observations to a \
        ZeroMQ hub; services turn them into typed events; any program subscribes with a plain SUB socket.

        Exit codes: 0 success, 1 runtime failure, 2 usage or configuration error.
        Docs: README.md, docs/protocol.md (wire format), docs/writing-plugins.md (installed: /usr/share/doc/locus).
        """,
        subcommands: [RunCommand.self, CheckCommand.self, SubCommand.self, RecordCommand.self,
                      ReplayCommand.self, ViewCommand.self, DecodeCommand.self, CtlCommand.self, StateCommand.self, PluginsCommand.self, KeygenCommand.self],
        defaultSubcommand: nil
    )

    // Flags of their own rather than the configuration's `version:`, whose --version takes
    // no companion: --verbose adds the protocol and schema versions.
    @Flag(help: "Show the version, the git commit and the build date.")
    var version = false

    @Flag(help: "With --version: also the wire protocol version and each event type's schema version.")
    var verbose = false

    /// swift-argument-parser reads a parent command's flags wherever they stand, also after a
    /// subcommand: `locus run config.yaml --version` would start the daemon. Called when a
    /// subcommand was parsed; refuses the root's flags as a usage error.
    static func refuseOwnFlags(after arguments: [String]) throws {
        for argument in arguments.prefix(while: { $0 != "--" }) where argument == "--version" || argument == "--verbose" {
            throw ValidationError("\(argument) is an option of locus itself, before any subcommand: locus --version [--verbose]")
        }
    }

    func validate() throws {
        if verbose && !version {
            throw ValidationError("--verbose only goes with --version: locus --version --verbose")
        }
    }

    func run() async throws {
        guard version else { throw CleanExit.helpRequest(self) }
        let report = VersionReport.current
        print(verbose ? report.verbose : report.line)
    }
}
