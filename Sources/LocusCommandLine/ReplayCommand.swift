import ArgumentParser
import Foundation
import LocusCore
import LocusFormats
import LocusRuntime
import Logging

struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Run the configured services over a recording as fast as possible; print their events as JSON lines.",
        discussion: """
        The recording takes the place of the sources, and standard output the place of the \
        sinks: only the config's `services:` are used. Clock ticks are generated in recorded \
        time, so the output is the same on every run — this is what golden-file tests compare. \
        Warnings go to standard error.

        The recording may be a Locus recording (from `locus record`, a file sink or \
        `locus decode`) or any log `locus decode` reads — NMEA 0183, gpsd JSON, GPX — which is \
        decoded on the fly into obs.fix.<source> / obs.sky.<source> messages (see \
        `locus decode --help`); the format is detected unless --format is given.
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

    @OptionGroup var inputOptions: RecordingInputOptions

    func validate() throws {
        // BLE lines are a `locus decode` input only: decode them, then replay the recording.
        if inputOptions.format == RecordingInputOptions.bleFormat {
            throw ValidationError("locus replay does not read BLE lines; run `locus decode --format ble` and replay its output")
        }
    }

    func run() async throws {
        LogSetup.bootstrap(level: .warning)
        let logger = Logger(label: "locus.replay")
        let configuration = try ConfigSupport.load(config, mode: .servicesOnly, logger: logger)
        let registry = ConfigSupport.registry
        var pipeline = OfflinePipeline(configuration: configuration, registry: registry, logger: logger)
        var out = [UInt8]()
        out.reserveCapacity(1 << 16)
        func flush() {
            StandardOutput.write(out)
            out.removeAll(keepingCapacity: true)
        }
        let emit: ([UInt8]) -> Void = { line in
            out.append(contentsOf: line)
            if out.count > 60_000 { flush() }
        }
        do {
            try RecordingPlayback(file: file, topics: topics, tickInterval: tickInterval, includeInput: includeInput,
                                  inputOptions: inputOptions).play(into: &pipeline, emit: emit)
        } catch {
            flush()
            FileHandle.standardError.write(Data("locus replay: \(error)\n".utf8))
            throw ExitCode(ExitStatus.failure)
        }
        flush()
        StandardOutput.flush()
        if pipeline.skipped > 0 {
            FileHandle.standardError.write(Data("locus replay: skipped \(pipeline.skipped) unusable line(s) of \(file)\n".utf8))
        }
    }
}
