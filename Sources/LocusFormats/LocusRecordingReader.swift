import LocusCore

/// Locus recordings (`{"topic":…,"envelope":{…}}` lines): passed through as they are, with
/// `PayloadRegistry.core` types decoded. Unreadable lines are skipped and counted.
public struct LocusRecordingReader {
    public let options: DecodeOptions
    public private(set) var statistics = DecodeStatistics()
    public private(set) var warnings: [String] = []
    public var registry: PayloadRegistry = .core

    public init(options: DecodeOptions = .init()) { self.options = options }

    public mutating func read(_ input: ByteInput, emit: (RecordedObservation) throws -> Void) throws {
        var stats = DecodeStatistics()
        let registry = registry
        let includeSky = options.includeSky
        let overlong = try input.forEachLine(maxLineBytes: 4 << 20) { line in
            let topic: String, body: [UInt8]
            do {
                (topic, body) = try RecordingLine.split(Array(line))
            } catch {
                stats.count("bad_lines")
                return
            }
            // As the replay source's line-by-line path does: the hub would drop it as bad_topic.
            guard Topic.isValid(topic) else {
                stats.count("bad_topics")
                return
            }
            if !includeSky && topic.hasPrefix("obs.sky.") { return }
            let envelope: Envelope
            do {
                envelope = try EnvelopeCodec.decode(body, registry: registry)
            } catch {
                stats.count("bad_envelopes")
                return
            }
            let obs = RecordedObservation(topic: topic, time: envelope.time, payload: envelope.payload, producer: envelope.producer)
            if obs.fix != nil { stats.fixes += 1 } else if obs.sky != nil { stats.skyViews += 1 } else { stats.others += 1 }
            try emit(obs)
        }
        if overlong > 0 { stats.count("overlong_lines", overlong) }
        stats.bytes = input.bytesRead
        statistics = stats
    }
}

/// Reads any of the formats, detecting it from the first bytes unless told.
public struct RecordingDecoder {
    public let options: DecodeOptions
    public private(set) var statistics = DecodeStatistics()
    public private(set) var warnings: [String] = []
    /// The format read by the last `decode` call.
    public private(set) var format: RecordingFormat?

    public init(options: DecodeOptions = .init()) { self.options = options }

    /// Bytes looked at to tell the format.
    public static let detectionBytes = 65_536

    /// Decodes `input` in `format` (nil: `RecordingFormat.detectSkippingText` on the first
    /// 64 KiB; lines of free text before the data are counted as `leading_text_lines`).
    /// Throws `FormatInputError.undetectedFormat` when detection fails.
    public mutating func decode(_ input: ByteInput, format: RecordingFormat? = nil,
                                emit: (RecordedObservation) throws -> Void) throws {
        let f: RecordingFormat
        var textLines = 0
        if let format {
            f = format
        } else {
            let head = try input.peek(Self.detectionBytes)
            let detected = RecordingFormat.detectSkippingText(head)
            guard let d = detected.format else {
                if head.isEmpty { self.format = nil; warnings.append("empty input"); return }
                throw FormatInputError.undetectedFormat
            }
            f = d
            textLines = detected.textLines
        }
        defer { if textLines > 0 { statistics.count("leading_text_lines", textLines) } }
        self.format = f
        switch f {
        case .nmea:
            var r = NMEALogReader(options: options)
            try r.read(input, emit: emit)
            statistics = r.statistics; warnings += r.warnings
        case .gpsd:
            var r = GpsdJSONReader(options: options)
            try r.read(input, emit: emit)
            statistics = r.statistics; warnings += r.warnings
        case .gpx:
            var r = GPXReader(options: options)
            try r.read(input, emit: emit)
            statistics = r.statistics; warnings += r.warnings
        case .locus:
            var r = LocusRecordingReader(options: options)
            try r.read(input, emit: emit)
            statistics = r.statistics; warnings += r.warnings
        }
    }

    /// All observations of a file, in order (tests and small files; the readers stream).
    public static func observations(path: String, format: RecordingFormat? = nil,
                                    options: DecodeOptions = .init()) throws -> (observations: [RecordedObservation], decoder: RecordingDecoder) {
        var d = RecordingDecoder(options: options)
        var out: [RecordedObservation] = []
        try d.decode(try ByteInput(path: path), format: format) { out.append($0) }
        return (out, d)
    }
}
