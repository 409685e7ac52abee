import ArgumentParser
import Foundation
import LocusCore
import LocusRuntime
import Logging

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Run the configured services over a recording as fast as possible; print their events as JSON lines.",
        discussion: """
        The recording (from `locus record` or a file sink) takes the place of the sources, and \
        standard output the place of the sinks: only the config's `services:` are used. Clock \
        ticks are generated in recorded time, so the output is the same on every run — this is \
        what golden-file tests compare. Warnings go to standard error.
        """
    )

    @Argument(help: "Recording to play (JSON lines of {topic, envelope}).")
    var file: String

    @Option(name: .shortAndLong, help: "Config whose services to run (default ./config.yaml).")
    var config: String = ConfigSupport.defaultPath

    @Option(name: .long, parsing: .upToNextOption, help: "Topic prefixes of the recording to feed in.")
    var topics: [String] = ["obs."]

    @Option(name: .long, help: "Seconds of recorded time between clock ticks.")
    var tickInterval: Double = 1

    @Flag(name: .long, help: "Also print the input messages, interleaved with the events.")
    var includeInput = false

    func run() async throws {
        LogSetup.bootstrap(level: .warning)
        let logger = Logger(label: "locus.replay")
        let configuration = try ConfigSupport.load(config, mode: .servicesOnly, logger: logger)
        let reader: LineReader
        do {
            reader = try LineReader(path: file)
        } catch {
            FileHandle.standardError.write(Data("locus replay: \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
        let registry = ConfigSupport.registry
        var timeline = RecordingTimeline(reader: reader, topics: topics, tickInterval: tickInterval, registry: registry)
        var pipeline = OfflinePipeline(configuration: configuration, registry: registry, logger: logger)
        var out = [UInt8]()
        out.reserveCapacity(1 << 16)
        func flush() {
            out.withUnsafeBytes { _ = fwrite($0.baseAddress, 1, $0.count, stdout) }
            out.removeAll(keepingCapacity: true)
        }
        do {
            try pipeline.run(&timeline, includeInput: includeInput, tickInterval: tickInterval) { line in
                out.append(contentsOf: line)
                if out.count > 60_000 { flush() }
            }
        } catch {
            flush()
            FileHandle.standardError.write(Data("locus replay: \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
        flush()
        fflush(stdout)
        if pipeline.skipped > 0 {
            FileHandle.standardError.write(Data("locus replay: skipped \(pipeline.skipped) unusable line(s) of \(file)\n".utf8))
        }
    }
}
