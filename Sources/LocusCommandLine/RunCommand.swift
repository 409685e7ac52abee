import ArgumentParser
import Foundation
import LocusRuntime
import Logging

struct RunCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run the hub and the plugins of a config file until SIGTERM or Ctrl-C.",
        discussion: """
        Binds the hub's endpoints (see `hub:` in the config; by default ipc sockets in \
        $LOCUS_RUNTIME_DIR, $XDG_RUNTIME_DIR/locus or /tmp/locus-<uid>), starts sinks and services, \
        then sources. Logs go to standard error. SIGTERM or SIGINT stops sources first, lets \
        services and sinks drain, and exits 0.

        Services keep their state across runs in the state directory: this config file's own \
        (`locus check` names it) unless hub.state_directory or $LOCUS_STATE_DIR chooses one. A \
        second run resumes where the last one stopped, so inputs it handled (a replay of the same \
        file) are skipped, and the log says so. --fresh (or `locus state reset`) starts over.
        """
    )

    @Argument(help: "Configuration file.")
    var config: String = ConfigSupport.defaultPath

    @Flag(help: ArgumentHelp("Start over: discard the services' saved state and what they had handled of their inputs (and looping replays' positions) before starting.",
                             discussion: "The journal stays (`locus state reset --journal` deletes it too). Refused while a locus runs on the same state."))
    var fresh = false

    @Option(name: .long, help: "Log level: trace, debug, info, notice, warning, error, critical (overrides log.level).")
    var logLevel: Logger.Level?

    /// A daemon serving many clients (web streams, subscribers) needs more descriptors than
    /// the 1024 a login shell gives by default: the soft limit goes up to the hard one (as
    /// systemd units get from LimitNOFILE), at most 65536.
    static func raiseOpenFileLimit() {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return }
        let wanted = min(limit.rlim_max, 65536)
        if limit.rlim_cur < wanted {
            limit.rlim_cur = wanted
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
    }

    func run() async throws {
        // Every file the daemon creates (sockets, journal, SQLite state and its -wal/-shm) is
        // private whatever umask it inherited; a socket given to a group is opened up explicitly.
        umask(0o077)
        Self.raiseOpenFileLimit()
        let bootLogger = Logger(label: "locus")
        let configuration = try ConfigSupport.loadForRun(config, logger: bootLogger)
        LogSetup.bootstrap(level: logLevel ?? configuration.logLevel)
        let logger = Logger(label: "locus")
        if fresh {
            do {
                let discarded = try StateReset.reset(configuration)
                logger.notice(discarded.isEmpty ? "--fresh: no saved state to discard" : "--fresh: discarded the saved state, starting over",
                              metadata: ["discarded": "\(discarded.joined(separator: "; "))", "state": "\(configuration.hub.stateDirectory)"])
            } catch {
                FileHandle.standardError.write(Data("locus: cannot start over (--fresh): \(error)\n".utf8))
                throw ExitCode(ExitStatus.failure)
            }
        }
        let daemon = Daemon(configuration: configuration, registry: ConfigSupport.registry, logger: logger)
        do {
            try await daemon.run()
        } catch {
            logger.critical("locus failed: \(error)")
            FileHandle.standardError.write(Data("locus: \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
    }
}

struct CheckCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Validate a configuration file without running it.",
        discussion: """
        Prints every problem as file:line:column: error: … and exits 2, or prints a summary and \
        exits 0. Also refuses, with the message and exit status `locus run` would give, what run \
        checks before it starts: CURVE key files (present, a secret key, mode 600) and \
        authorized_keys directories, the runtime and state directories (owner, mode), token \
        files, serial devices that are not character devices, exec programs not found.
        """
    )

    @Argument(help: "Configuration file.")
    var config: String = ConfigSupport.defaultPath

    func run() async throws {
        LogSetup.bootstrap(level: .warning)
        let configuration = try ConfigSupport.loadForRun(config, logger: Logger(label: "locus"))
        let list = configuration.plugins.map { "\($0.kind.rawValue) \($0.id) (\($0.type))" }
        print("\(config): OK — \(configuration.plugins.count) plugin(s)" + (list.isEmpty ? "" : ": " + list.joined(separator: ", ")))
        if !configuration.disabled.isEmpty { print("disabled: \(configuration.disabled.joined(separator: ", "))") }
        // Where `locus run` keeps this config's state (and what `locus state reset` discards).
        print("state: \(configuration.hub.stateDirectory)")
    }
}
