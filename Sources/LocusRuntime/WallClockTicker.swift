import LocusCore
import ServiceLifecycle

/// Publishes `clock.tick` in wall time when no source drives the clock from a recording, so
/// services' timeouts advance during live operation. Ticks fall on whole multiples of the interval.
/// Immutable after init: `interval` and a thread-safe `publisher`.
final class WallClockTicker: Service, @unchecked Sendable {
    let interval: Double
    let publisher: EventPublisher

    init(interval: Double, publisher: EventPublisher) {
        self.interval = interval
        self.publisher = publisher
    }

    func run() async throws {
        let tick = ClockTick(basis: .wall, interval: interval)
        let step = Int64((interval * 1000).rounded())
        try await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                let now = EventTime.wallNow().milliseconds
                let next = (now / step + 1) * step
                try await Task.sleep(nanoseconds: UInt64(next - now) * 1_000_000)
                self.publisher.publish(tick, topic: "clock.tick", time: EventTime(milliseconds: next))
            }
        }
    }
}
