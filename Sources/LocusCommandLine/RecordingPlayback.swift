import ArgumentParser
import Foundation
import LocusCore
import LocusFormats
import LocusRuntime

/// A recording played through the configured services, as `locus replay` and `locus view` do:
/// a Locus recording through the replay source's timeline, or an NMEA, gpsd or GPX log decoded
/// on the fly. Each output line (recording format) goes to `emit`.
struct RecordingPlayback {
    var file: String
    var topics: [String]
    var tickInterval: Double
    var includeInput: Bool
    var inputOptions: RecordingInputOptions

    func play(into pipeline: inout OfflinePipeline, emit: ([UInt8]) -> Void) throws {
        let input = try ByteInput(path: file)
        let chosen = try inputOptions.recordingFormat
            ?? RecordingFormat.detect(input.peek(RecordingDecoder.detectionBytes)) ?? .locus
        if chosen == .locus {
            guard file != "-" else { throw ValidationError("a Locus recording cannot be played from standard input; give its path") }
            try playRecording(path: file, registry: ConfigSupport.registry, pipeline: &pipeline, emit: emit)
        } else {
            try playDecoded(input, format: chosen, pipeline: &pipeline, emit: emit)
        }
    }

    /// A Locus recording, through the same timeline the replay source uses.
    func playRecording(path: String, registry: PayloadRegistry, pipeline: inout OfflinePipeline,
                               emit: ([UInt8]) -> Void) throws {
        let reader = try LineReader(path: path)
        var timeline = RecordingTimeline(reader: reader, topics: topics, tickInterval: tickInterval, registry: registry)
        try pipeline.run(&timeline, includeInput: includeInput, tickInterval: tickInterval, emit: emit)
    }

    /// An NMEA, gpsd or GPX log, decoded as `locus decode` does, with ticks from the same
    /// scheduler as a replay source playing that file.
    func playDecoded(_ input: ByteInput, format: RecordingFormat, pipeline: inout OfflinePipeline,
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
