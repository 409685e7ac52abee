import Foundation
import LocusCore
import Logging
import ServiceLifecycle

/// Publishes `status.drops` (topic `status.locus.drops`) when any drop counter moved: at most
/// once per `interval` seconds of wall time, never when nothing was dropped. Subscribers (and
/// the log, at warning level) learn of losses without polling `locus ctl status`.
final class DropReportService: Service, @unchecked Sendable {
    static let topic = "status.locus.drops"
    let interval: Double
    let report: @Sendable () -> DaemonReport
    let publisher: EventPublisher
    let logger: Logger

    init(interval: Double, publisher: EventPublisher, logger: Logger, report: @escaping @Sendable () -> DaemonReport) {
        self.interval = interval
        self.publisher = publisher
        self.logger = logger
        self.report = report
    }

    func run() async throws {
        // Cancelled at graceful shutdown: a sleep of `interval` must not hold the daemon's stop.
        try? await cancelWhenGracefulShutdown { await self.reportUntilCancelled() }
    }

    private func reportUntilCancelled() async {
        var last: [String: UInt64] = [:]
        var since = ContinuousClock.now
        while !Task.isCancelled {
            do {
                try await Task.sleep(nanoseconds: UInt64(interval * 1e9))
            } catch {
                return
            }
            let now = ContinuousClock.now
            let totals = report().dropCounters
            let moved = Self.increments(from: last, to: totals)
            last = totals
            guard !moved.isEmpty else { continue }
            let d = since.duration(to: now)
            since = now
            let seconds = Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            let event = DropReport(interval: (seconds * 1000).rounded() / 1000, dropped: moved,
                                   totals: totals.filter { $0.value > 0 })
            publisher.publish(event, topic: Self.topic, time: .wallNow())
            logger.warning("messages were dropped", metadata: [
                "dropped": "\(moved.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " "))",
                "seconds": "\(event.interval)",
            ])
        }
    }

    /// Counters that grew, by how much (a counter that went back, a restarted plugin's, counts
    /// from zero).
    static func increments(from old: [String: UInt64], to new: [String: UInt64]) -> [String: UInt64] {
        var out: [String: UInt64] = [:]
        for (k, v) in new {
            let before = old[k] ?? 0
            let grew = v >= before ? v - before : v
            if grew > 0 { out[k] = grew }
        }
        return out
    }
}
