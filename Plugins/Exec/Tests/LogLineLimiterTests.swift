@testable import LocusExecPlugin
import LocusTestKit
import Testing

@Suite struct LogLineLimiterTests {
    @Test func admitsABurstThenTheRateAndCountsTheRest() {
        var limiter = LogLineLimiter(perSecond: 10, burst: 20)
        var admitted = 0
        // 1,000 lines in the first second: the burst of 20 plus about 10 refilled.
        for i in 0..<1000 where limiter.admit(at: Double(i) / 1000) { admitted += 1 }
        #expect(admitted >= 20 && admitted <= 31, "\(admitted)")
        #expect(limiter.total == UInt64(1000 - admitted))
        // A summary only once 10 s have passed since the first suppressed line, or when forced.
        let early = limiter.summary(at: 1.0)
        #expect(early == nil)
        let forced = limiter.summary(at: 1.0, force: true)
        #expect(forced?.lines == UInt64(1000 - admitted))
        #expect(limiter.pending == 0)
        // After a quiet spell the bucket is full again.
        admitted = 0
        for i in 0..<30 where limiter.admit(at: 100 + Double(i) / 1000) { admitted += 1 }
        #expect(admitted == 20)
    }

    @Test func zeroMeansNoLimit() {
        var limiter = LogLineLimiter(perSecond: 0)
        var admitted = 0
        for _ in 0..<10_000 where limiter.admit(at: 0) { admitted += 1 }
        #expect(admitted == 10_000)
        #expect(limiter.total == 0)
    }
}
