import Dispatch
import Logging

/// Logs refused messages without flooding: the first drop of each reason at once (warning),
/// then at most one summary line per interval with the counts since the previous line.
/// Owned by the hub thread.
struct DropReporter {
    let logger: Logger
    let intervalNanoseconds: UInt64
    private var announced = [Bool](repeating: false, count: DropReason.allCases.count)
    private var pending = [UInt64](repeating: 0, count: DropReason.allCases.count)
    private var pendingTotal: UInt64 = 0
    private var lastSummary: UInt64

    init(logger: Logger, intervalSeconds: Double = 10) {
        self.logger = logger
        intervalNanoseconds = UInt64(intervalSeconds * 1e9)
        lastSummary = DispatchTime.now().uptimeNanoseconds
    }

    mutating func record(_ rejection: MessageRejection) {
        let i = rejection.reason.index
        if !announced[i] {
            announced[i] = true
            logger.warning("hub dropped an invalid message; further drops are summarised every \(intervalNanoseconds / 1_000_000_000) s",
                           metadata: ["reason": "\(rejection.reason.rawValue)", "detail": "\(rejection.detail)"])
            return
        }
        pending[i] += 1
        pendingTotal += 1
    }

    /// Call regularly (once per loop turn); logs the summary when one is due.
    mutating func tick() {
        guard pendingTotal > 0 else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now &- lastSummary >= intervalNanoseconds else { return }
        var metadata: Logger.Metadata = [:]
        for reason in DropReason.allCases where pending[reason.index] > 0 {
            metadata[reason.rawValue] = "\(pending[reason.index])"
        }
        logger.warning("hub dropped \(pendingTotal) more invalid messages", metadata: metadata)
        pending = [UInt64](repeating: 0, count: pending.count)
        pendingTotal = 0
        lastSummary = now
    }
}
