/// A token bucket over log lines: `perSecond` lines a second on average, bursts of up to
/// `burst`. A program flooding its standard error otherwise turned into gigabytes of log and a
/// daemon busy formatting them; past the limit lines are counted, not logged, and the count is
/// reported in one summary line.
///
/// Time is passed in (seconds on a monotonic clock), so the limiter is a plain value.
struct LogLineLimiter {
    let perSecond: Double
    let burst: Double
    private var tokens: Double
    private var last: Double?
    /// Lines suppressed since the last summary.
    private(set) var pending: UInt64 = 0
    /// Lines suppressed since the program started.
    private(set) var total: UInt64 = 0
    private var firstPendingAt: Double?

    /// `perSecond` 0 means no limit.
    init(perSecond: Double, burst: Double? = nil) {
        self.perSecond = perSecond
        self.burst = burst ?? max(perSecond * 2, 1)
        tokens = self.burst
    }

    /// True if the line at time `now` may be logged; false if it is counted instead.
    mutating func admit(at now: Double) -> Bool {
        guard perSecond > 0 else { return true }
        if let last { tokens = min(burst, tokens + (now - last) * perSecond) }
        last = now
        if tokens >= 1 {
            tokens -= 1
            return true
        }
        if pending == 0 { firstPendingAt = now }
        pending += 1
        total += 1
        return false
    }

    /// The suppressed count to report, at most every `interval` seconds (and at the end, with
    /// `force`); resets the pending count. nil when there is nothing to report yet.
    mutating func summary(at now: Double, interval: Double = 10, force: Bool = false) -> (lines: UInt64, seconds: Double, total: UInt64)? {
        guard pending > 0, let since = firstPendingAt else { return nil }
        guard force || now - since >= interval else { return nil }
        defer {
            pending = 0
            firstPendingAt = nil
        }
        return (pending, now - since, total)
    }
}
