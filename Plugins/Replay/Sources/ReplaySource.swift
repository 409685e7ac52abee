import Foundation
import LocusCore
import LocusFormats
import Logging

/// Plays a recording onto the bus, ticking the bus clock in recorded time.
///
/// Locus recordings are re-published with this source as producer (fresh sequence numbers) on
/// their recorded topics, so services configured for `gps0` see a replay of `gps0` as if live.
/// NMEA logs, gpsd JSON logs and GPX files are decoded as `locus decode` does and published on
/// `obs.fix.<source>` / `obs.sky.<source>`.
public struct ReplaySource: SourcePlugin {
    public let configuration: ReplayConfiguration
    public let path: String
    /// The file's format: `configuration.format`, or detected from its first bytes (Locus if undecided).
    public let format: RecordingFormat
    /// Source id for NMEA, gpsd and GPX files.
    public let source: String

    /// For `loop: true` with a state directory: where the next passes' offset is kept.
    let loopPosition: LoopPositionFile?

    /// `pluginID` is the default `source` (the factory passes the configured id). With
    /// `stateDirectory` a looping replay continues in event time after a restart (`LoopPositionFile`).
    public init(configuration: ReplayConfiguration, path: String, pluginID: String = "replay", stateDirectory: String? = nil) {
        self.configuration = configuration
        self.path = path
        loopPosition = configuration.loop ? stateDirectory.map { LoopPositionFile(path: $0 + "/replay/" + pluginID + ".loop") } : nil
        self.source = configuration.source ?? pluginID
        self.format = Self.format(of: path, configured: configuration.format) ?? .locus
    }

    /// The configured format, or the one detected from the file's first 4 KiB (nil if undecided).
    public static func format(of path: String, configured: ReplayConfiguration.Format) -> RecordingFormat? {
        if let f = RecordingFormat(rawValue: configured.rawValue) { return f }
        guard let input = try? ByteInput(path: path), let head = try? input.peek(RecordingDecoder.detectionBytes) else { return nil }
        // An empty file plays nothing whatever its format.
        return head.isEmpty ? .locus : RecordingFormat.detect(head)
    }

    public var produces: [String] {
        if format == .locus { return configuration.topics + ["clock.tick"] }
        return ["obs.fix." + source, "obs.sky." + source].filter { t in configuration.topics.contains { t.hasPrefix($0) } }
            + ["clock.tick"]
    }
    public var drivesClock: Bool { true }

    public func run(context: PluginContext) async throws {
        if configuration.startDelay > 0 {
            try await Task.sleep(nanoseconds: UInt64(configuration.startDelay * 1e9))
        }
        do {
            // Locus recordings keep their line-by-line path (with skipped lines logged) unless cut.
            if format == .locus, configuration.start == nil, configuration.end == nil {
                try await runRecording(context: context)
            } else {
                try await runDecoded(context: context)
            }
        } catch let e as FormatInputError {
            // A file that is not valid for its format fails the same way on every try: stop
            // this source (the rest of the daemon keeps running); I/O errors are retried.
            if case .malformed = e { throw PermanentFailure("\(path): \(e)") }
            throw e
        }
    }

    private func runRecording(context: PluginContext) async throws {
        let reader = try LineReader(path: path)
        var timeline = RecordingTimeline(reader: reader, topics: configuration.topics, tickInterval: configuration.tickInterval,
                                         loop: configuration.loop, loopOffset: loopPosition?.read(logger: context.logger) ?? 0)
        var savedOffset: Int64?
        let tick = ClockTick(basis: .recorded, interval: configuration.tickInterval)
        var pacer = Pacer(speed: configuration.speed)
        var published = 0
        var skipped = 0
        while let item = timeline.next() {
            try Task.checkCancellation()
            if let offset = timeline.nextPassesOffset, offset != savedOffset {
                loopPosition?.write(offset, logger: context.logger)
                savedOffset = offset
            }
            switch item {
            case .tick(let time):
                try await pacer.wait(until: time)
                try await context.waitForConsumers()
                context.publish(tick, topic: "clock.tick", time: time)
            case .message(let topic, let envelope):
                try await pacer.wait(until: envelope.time)
                try await context.waitForConsumers()
                context.publisher.republish(envelope, topic: topic)
                published += 1
            case .skipped(let line, let reason):
                skipped += 1
                // The first few are worth reading; after that only the count matters.
                if skipped <= 5 {
                    context.logger.warning("skipping line of recording", metadata: ["file": "\(path)", "line": "\(line)", "reason": "\(reason)"])
                }
            }
        }
        context.logger.info("recording finished", metadata: ["file": "\(path)", "published": "\(published)", "skipped": "\(skipped)"])
    }

    /// NMEA, gpsd and GPX files (and Locus recordings cut by `start`/`end`): decoded on a thread
    /// by `RecordingDecoder`, paced here, with ticks from `TickScheduler`.
    private func runDecoded(context: PluginContext) async throws {
        let options = DecodeOptions(source: source, fallbackDate: configuration.date, includeSky: true)
        let tick = ClockTick(basis: .recorded, interval: configuration.tickInterval)
        var scheduler = TickScheduler(tickInterval: configuration.tickInterval, loopOffset: loopPosition?.read(logger: context.logger) ?? 0)
        var pacer = Pacer(speed: configuration.speed)
        var published = 0
        var pass = 0
        repeat {
            pass += 1
            let feed = DecodeFeed()
            feed.start(path: path, format: format, options: options)
            defer { feed.cancel() }
            decoding: while true {
                switch try await feed.next() {
                case .end(let warnings, let statistics):
                    if pass == 1 {
                        for w in warnings { context.logger.warning("\(w)", metadata: ["file": "\(path)"]) }
                        context.logger.debug("decoded", metadata: ["file": "\(path)", "statistics": "\(statistics.summary)"])
                    }
                    break decoding
                case .observation(let o):
                    guard configuration.topics.contains(where: { o.topic.hasPrefix($0) }), Topic.isValid(o.topic) else { continue }
                    if let start = configuration.start, o.time < start { continue }
                    if let end = configuration.end, o.time > end { break decoding }
                    let (ticks, time) = scheduler.message(at: o.time)
                    for t in ticks {
                        try await pacer.wait(until: t)
                        try await context.waitForConsumers()
                        context.publish(tick, topic: "clock.tick", time: t)
                    }
                    try await pacer.wait(until: time)
                    try await context.waitForConsumers()
                    switch o.payload {
                    case .typed(let payload): context.publish(payload, topic: o.topic, time: time)
                    case .raw(let raw): context.publisher.publish(raw: raw, topic: o.topic, time: time)
                    }
                    published += 1
                }
            }
            if let offset = scheduler.nextPassesOffset { loopPosition?.write(offset, logger: context.logger) }
        } while scheduler.endOfPass(loop: configuration.loop)
        if let t = scheduler.closingTick() {
            try await pacer.wait(until: t)
            try await context.waitForConsumers()
            context.publish(tick, topic: "clock.tick", time: t)
        }
        context.logger.info("recording finished", metadata: ["file": "\(path)", "format": "\(format)", "published": "\(published)"])
    }
}

/// Maps recorded time to wall time at the configured speed. Sleeping is the only use of the wall
/// clock here: what is published, and in which order, does not depend on it.
struct Pacer {
    let speed: ReplayConfiguration.Speed
    var origin: (recorded: EventTime, wall: ContinuousClock.Instant)?
    var sinceYield = 0

    init(speed: ReplayConfiguration.Speed) { self.speed = speed }

    mutating func wait(until time: EventTime) async throws {
        guard case .factor(let factor) = speed else {
            // Let other tasks (and cancellation) in now and then when running flat out.
            sinceYield += 1
            if sinceYield >= 256 { sinceYield = 0; await Task.yield(); try Task.checkCancellation() }
            return
        }
        guard let origin else {
            self.origin = (time, ContinuousClock.now)
            return
        }
        let offset = time.seconds(since: origin.recorded) / factor
        let deadline = origin.wall.advanced(by: .milliseconds(Int64(offset * 1000)))
        if deadline > ContinuousClock.now {
            try await Task.sleep(until: deadline, clock: .continuous)
        }
    }
}
