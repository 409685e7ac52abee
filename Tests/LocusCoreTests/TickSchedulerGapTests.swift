import Testing
@testable import LocusCore

/// A recording whose clock jumps years ahead must not turn into a replay of ticks that never
/// reaches its next message.
@Suite struct TickSchedulerGapTests {
    /// gpsd's `mtk-3301.log` jumps from 1980-01-12 to 2008-08-23 between two fixes: 900 million
    /// one-second ticks before; a day's worth and the gap's last tick now.
    @Test func aHugeGapPlaysItsFirstDayThenItsLastTick() throws {
        var s = TickScheduler(tickInterval: 1)
        _ = s.message(at: try #require(EventTime(iso8601: "1980-01-12T08:14:33.591Z")))
        let next = try #require(EventTime(iso8601: "2008-08-23T08:14:34.590Z"))
        let (ticks, time) = s.message(at: next)
        #expect(time == next)
        #expect(ticks.count == TickScheduler.maxTicksPerGap + 1)
        let all = Array(ticks)
        #expect(all.count == TickScheduler.maxTicksPerGap + 1)
        #expect(all.first == EventTime(iso8601: "1980-01-12T08:14:34.000Z"))
        #expect(all[TickScheduler.maxTicksPerGap - 1] == EventTime(iso8601: "1980-01-13T08:14:33.000Z"))
        // The last tick before the message, as without the cut; and time only moves forward.
        #expect(all.last == EventTime(iso8601: "2008-08-23T08:14:34.000Z"))
        #expect(zip(all, all.dropFirst()).allSatisfy { $0 < $1 })
        // Ticks go on from there as usual (those before the next message, not at it).
        let (after, _) = s.message(at: try #require(EventTime(iso8601: "2008-08-23T08:14:36.500Z")))
        #expect(Array(after) == ["2008-08-23T08:14:35.000Z", "2008-08-23T08:14:36.000Z"].compactMap { EventTime(iso8601: $0) })
    }

    @Test func gapsUpToADayAreUnchanged() throws {
        var s = TickScheduler(tickInterval: 1)
        _ = s.message(at: EventTime(milliseconds: 500))
        let (ticks, _) = s.message(at: EventTime(milliseconds: 86_400_500))
        #expect(ticks.count == 86_400)
        #expect(ticks.last == nil)
        #expect(Array(ticks).last == EventTime(milliseconds: 86_400_000))
    }
}
