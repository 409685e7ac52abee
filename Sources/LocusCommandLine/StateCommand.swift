import ArgumentParser
import Foundation
import LocusRuntime
import Logging

/// `locus state`: what a configuration keeps across runs, and starting it over (issue 50).
struct StateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "state",
        abstract: "Start a config's services over: discard the state they keep across runs.",
        discussion: """
        Services keep their state in the state directory (`locus check CONFIG` names it), so a \
        second `locus run` resumes where the last stopped and skips inputs already handled. \
        `locus state reset` discards it; `locus run --fresh` does the same before it starts.
        """,
        subcommands: [StateResetCommand.self]
    )
}

struct StateResetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset",
        abstract: "Discard the services' saved state and input positions (all, or one plugin's).",
        discussion: """
        Each service's saved state (records, what it had handled of its inputs, events committed \
        but not published) and each looping replay's position are discarded; the next run starts \
        from empty state. The journal and the services' sequence numbers stay, unless --journal. \
        Refused (exit 1) while a locus runs on the same state: stop it first. An unknown \
        plugin, or one that keeps no state, is a usage error (exit 2).
        """
    )

    @Argument(help: "Only this service or replay source (its id); default: every one of the config.")
    var plugin: String?

    @Option(name: .long, help: "Configuration file.")
    var config: String = ConfigSupport.defaultPath

    @Flag(help: "Also delete the journal (what catch-up serves) and restart the services' sequence numbers.")
    var journal = false

    func run() async throws {
        LogSetup.bootstrap(level: .warning)
        let configuration = try ConfigSupport.load(config, logger: Logger(label: "locus"))
        do {
            let discarded = try StateReset.reset(configuration, only: plugin, journal: journal)
            print(discarded.isEmpty ? "no saved state to discard in \(configuration.hub.stateDirectory)" : discarded.joined(separator: "\n"))
        } catch let refusal as StateReset.Refusal {
            FileHandle.standardError.write(Data("locus: \(refusal)\n".utf8))
            throw ExitCode(refusal.isUsage ? ExitStatus.usage : ExitStatus.failure)
        }
    }
}
