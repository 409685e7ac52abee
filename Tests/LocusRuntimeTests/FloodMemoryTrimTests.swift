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
