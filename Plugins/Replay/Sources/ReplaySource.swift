import Foundation
import LocusCore
import Logging

/// Plays a Locus recording onto the bus, ticking the bus clock in recorded time.
///
/// Messages are re-published with this source as producer (fresh sequence numbers) on their
/// recorded topics, so services configured for `gps0` see a replay of `gps0` as if live.
public struct ReplaySource: SourcePlugin {
    public let configuration: ReplayConfiguration
    public let path: String

    public init(configuration: ReplayConfiguration, path: String) {
        self.configuration = configuration
        self.path = path
    }

    public var produces: [String] { configuration.topics + ["clock.tick"] }
    public var drivesClock: Bool { true }

    public func run(context: PluginContext) async throws {
        let reader = try LineReader(path: path)
        var timeline = RecordingTimeline(reader: reader, topics: configuration.topics,
                                         tickInterval: configuration.tickInterval, loop: configuration.loop)
        let tick = ClockTick(basis: .recorded, interval: configuration.tickInterval)
        if configuration.startDelay > 0 {
            try await Task.sleep(nanoseconds: UInt64(configuration.startDelay * 1e9))
        }
        var pacer = Pacer(speed: configuration.speed)
        var published = 0
        var skipped = 0
        while let item = timeline.next() {
            try Task.checkCancellation()
            switch item {
            case .tick(let time):
                try await pacer.wait(until: time)
                context.publish(tick, topic: "clock.tick", time: time)
            case .message(let topic, let envelope):
                try await pacer.wait(until: envelope.time)
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
            if sinceYield >= 256 { sinceYield = 0; await Task.yield() }
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
