import Foundation
import Testing
@testable import LocusRuntime

/// Issue 29 item 9: after a flood the daemon kept what glibc had allocated for it (40 MB before
/// a 20 s ingest flood, 142 MB long after). The first quiet status interval after drops trims.
@Suite struct FloodMemoryTrimTests {
    @Test func trimsOnceAtTheFirstQuietIntervalAfterDrops() {
        var trim = FloodMemoryTrim()
        let decisions = [false, true, true, false, false].map { trim.intervalEnded(dropsMoved: $0) }
        #expect(decisions == [false, false, false, true, false])
    }

    /// 500 web clients that never read, closed after a while, count no drop: the daemon stayed
    /// 30 MB above its level before (malloc_trim, called by hand, gave it back). Growth past
    /// 16 MB over the least resident size trims too, at quiet intervals only; a trim that gives
    /// nothing back (the memory is still in use) doubles the wait before the next.
    @Test func growthAboveTheBaselineTrimsAtQuietIntervalsWithBackoff() {
        var trim = FloodMemoryTrim()
        let mb = 1024
        trim.started(residentKilobytes: 50 * mb)
        let step = { (drops: Bool, resident: Int) -> Bool in trim.intervalEnded(dropsMoved: drops, residentKilobytes: resident) }
        #expect(step(false, 60 * mb) == false)
        // The clients hold memory: the trim gives nothing back; next chance two intervals on.
        #expect(step(false, 85 * mb) == true)
        trim.trimmed(before: 85 * mb, after: 85 * mb)
        #expect(step(false, 85 * mb) == false)
        // They have gone: this one gives 32 MB back.
        #expect(step(false, 85 * mb) == true)
        trim.trimmed(before: 85 * mb, after: 53 * mb)
        #expect(step(false, 53 * mb) == false)
        // Not while something is being dropped: then at the first quiet interval.
        #expect(step(true, 90 * mb) == false)
        #expect(step(false, 90 * mb) == true)
        trim.trimmed(before: 90 * mb, after: 90 * mb)
        // Fruitless trims space out: 2, then 4 intervals.
        let next = (0 ..< 8).map { _ in
            let now = trim.intervalEnded(dropsMoved: false, residentKilobytes: 90 * mb)
            if now { trim.trimmed(before: 90 * mb, after: 90 * mb) }
            return now
        }
        #expect(next == [false, true, false, false, false, true, false, false], "\(next)")
    }

    /// What the trim does: memory freed in small pieces (as libzmq frees a flood's messages)
    /// stays resident until it, and goes with it.
    @Test func freedMemoryLeavesWithTheTrim() {
        let count = 300_000
        var blocks: [UnsafeMutableRawPointer] = []
        blocks.reserveCapacity(count)
        for _ in 0 ..< count {
            let p = malloc(480)!
            memset(p, 1, 480)
            blocks.append(p)
        }
        // Keep every 1,000th block: a few live allocations pin the heap's top, as in a daemon.
        for (i, p) in blocks.enumerated() where i % 1000 != 999 { free(p) }
        let rss = FloodMemoryTrim.trim()
        for (i, p) in blocks.enumerated() where i % 1000 == 999 { free(p) }
        #expect(rss.before - rss.after > 50_000, "resident \(rss.before) kB before the trim, \(rss.after) kB after")
    }
}
