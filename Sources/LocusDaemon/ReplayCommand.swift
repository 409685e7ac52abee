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
            out.withUnsafeBytes { _ = fwrite($0.baseAddress, 1, $0.count, stdout) }
            out.removeAll(keepingCapacity: true)
        }
        let emit: ([UInt8]) -> Void = { line in
            out.append(contentsOf: line)
            if out.count > 60_000 { flush() }
        }
        do {
            let input = try ByteInput(path: file)
            let chosen = try inputOptions.recordingFormat
                ?? RecordingFormat.detect(input.peek(RecordingDecoder.detectionBytes)) ?? .locus
            if chosen == .locus {
                guard file != "-" else { throw ValidationError("a Locus recording cannot be replayed from standard input; give its path") }
                try playRecording(path: file, registry: registry, pipeline: &pipeline, emit: emit)
            } else {
                try playDecoded(input, format: chosen, pipeline: &pipeline, emit: emit)
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

    /// A Locus recording, through the same timeline the replay source uses.
    private func playRecording(path: String, registry: PayloadRegistry, pipeline: inout OfflinePipeline,
                               emit: ([UInt8]) -> Void) throws {
        let reader = try LineReader(path: path)
        var timeline = RecordingTimeline(reader: reader, topics: topics, tickInterval: tickInterval, registry: registry)
        try pipeline.run(&timeline, includeInput: includeInput, tickInterval: tickInterval, emit: emit)
    }

    /// An NMEA, gpsd or GPX log, decoded as `locus decode` does, with ticks from the same
    /// scheduler as a replay source playing that file.
    private func playDecoded(_ input: ByteInput, format: RecordingFormat, pipeline: inout OfflinePipeline,
                             emit: ([UInt8]) -> Void) throws {
        // Sky views only when a service or --include-input wants them: decoding them is half the work.
        let sky = includeInput || pipeline.anyServiceReceives(topicsStartingWith: "obs.sky.")
        let options = inputOptions.decodeOptions(includeSky: sky)
        var decoder = RecordingDecoder(options: options)
        var ticks = TickScheduler(tickInterval: tickInterval)
        var last: EventTime?
        let includeInput = includeInput, tickInterval = tickInterval, topics = topics
        try decoder.decode(input, format: format) { obs in
            guard topics.contains(where: { obs.topic.hasPrefix($0) }) else { return }
            let (due, time) = ticks.message(at: obs.time)
            for t in due { try pipeline.process(.tick(t), tickInterval: tickInterval, emit: emit) }
            let envelope = Envelope(type: obs.payload.eventType, version: obs.payload.schemaVersion,
                                    producer: obs.producer ?? "replay", seq: 0, time: time, payload: obs.payload)
            try pipeline.process(.message(topic: obs.topic, envelope: envelope), includeInput: includeInput,
                                 tickInterval: tickInterval, emit: emit)
            last = time
        }
        if last != nil, let t = ticks.closingTick() { try pipeline.process(.tick(t), tickInterval: tickInterval, emit: emit) }
        for w in decoder.warnings { FileHandle.standardError.write(Data("locus replay: warning: \(w)\n".utf8)) }
    }
}
