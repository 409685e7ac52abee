import Foundation
import LocusCore
import LocusStore
import Logging
import ServiceLifecycle

/// Publishes `status.drops` (topic `status.locus.drops`) when any drop counter moved: at most
/// once per `interval` seconds of wall time, never when nothing was dropped. Subscribers (and
/// the log, at warning level) learn of losses without polling `locus ctl status`.
///
/// After an interval with drops, the first quiet one gives freed memory back to the system
/// (`FloodMemoryTrim`), as does a quiet one that ends 16 MB above the daemon's baseline. It also reports the journal's health once per change, on `status.locus.journal`: `failed`
/// with the error when writes begin to fail (a full disk), `running` when they succeed again.
/// Immutable after init: every stored property is a `let` of a `Sendable` type.
final class DropReportService: Service, @unchecked Sendable {
    static let topic = "status.locus.drops"
    static let journalTopic = "status.locus.journal"
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
        var journalError: String?
        var trim = FloodMemoryTrim()
        trim.started(residentKilobytes: FloodMemoryTrim.residentKilobytes())
        while !Task.isCancelled {
            do {
                try await Task.sleep(nanoseconds: UInt64(interval * 1e9))
            } catch {
                return
            }
            let now = ContinuousClock.now
            let current = report()
            if let status = Self.journalChange(from: journalError, to: current.journal) {
                journalError = status.state == .failed ? current.journal?.writeError : nil
                publisher.publish(status, topic: Self.journalTopic, time: .wallNow())
                if status.state == .failed {
                    logger.error("the journal cannot be written; messages are forwarded but not journaled (journal.not_written) until it can",
                                 metadata: ["error": "\(journalError ?? "")"])
                } else {
                    logger.notice("the journal is written again")
                }
            }
            let totals = current.dropCounters
            let moved = Self.increments(from: last, to: totals)
            last = totals
            if trim.intervalEnded(dropsMoved: !moved.isEmpty, residentKilobytes: FloodMemoryTrim.residentKilobytes()) {
                let rss = FloodMemoryTrim.trim()
                trim.trimmed(before: rss.before, after: rss.after)
                // Logged when it gave back something worth saying (a trim of a daemon that
                // simply holds more now gives back nothing, every interval).
                if rss.before - rss.after >= 4096 {
                    logger.info("gave memory back after a flood", metadata: ["resident_kb_before": "\(rss.before)", "resident_kb_after": "\(rss.after)"])
                }
            }
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

    /// The status to publish when the journal's write health changed since `previous` (the
    /// error last reported, nil when healthy), else nil.
    static func journalChange(from previous: String?, to journal: JournalStatistics?) -> PluginStatus? {
        let error = journal?.writeError
        switch (previous, error) {
        case (nil, let e?):
            return PluginStatus(plugin: "journal", kind: "hub", pluginType: "journal", state: .failed,
                                reason: "cannot write the journal: \(e); retrying the same segment (every 5 s at most), forwarding messages meanwhile (journal.not_written counts them)")
        case (_?, nil):
            return PluginStatus(plugin: "journal", kind: "hub", pluginType: "journal", state: .running, reason: "writing again")
        default:
            return nil
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
