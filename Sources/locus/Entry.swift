import ArgumentParser
import Foundation

/// Runs the command line with Locus's exit codes: 0 ok, 1 runtime failure, 2 usage or config error.
/// (ArgumentParser's own convention is 64 for usage errors; daemons' users expect 2.)
@main
enum Entry {
    static func main() async {
        signal(SIGPIPE, SIG_IGN)
        do {
            var command = try Locus.parseAsRoot()
            if var asyncCommand = command as? AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch let code as ExitCode {
            exit(code.rawValue)
        } catch {
            let exitCode = Locus.exitCode(for: error)
            if exitCode == .success {
                Locus.exit(withError: error) // --help, --version
            }
            let message = Locus.fullMessage(for: error)
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

struct Locus: AsyncParsableCommand {
    static let version = "0.1.0"

    static let configuration = CommandConfiguration(
        commandName: "locus",
        abstract: "Locus — a location event bus for Linux (GNSS, geofences, visits, beacons over ZeroMQ).",
        discussion: """
        Sources (GPS receivers, gpsd, Bluetooth scanners, recordings) publish observations to a \
        ZeroMQ hub; services turn them into typed events; any program subscribes with a plain SUB socket.

        Exit codes: 0 success, 1 runtime failure, 2 usage or configuration error.
        Docs: README.md, docs/protocol.md (wire format), docs/writing-plugins.md.
        """,
        version: version,
        subcommands: [RunCommand.self, CheckCommand.self, SubCommand.self, RecordCommand.self,
                      ReplayCommand.self, DecodeCommand.self, CtlCommand.self, PluginsCommand.self],
        defaultSubcommand: nil
    )
}
