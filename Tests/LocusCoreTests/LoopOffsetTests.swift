import LocusCore
import Testing

/// A looping replay continues in event time after a restart (`TickScheduler.nextPassesOffset`).
struct LoopOffsetTests {
    @Test func aSchedulerStartedAtTheSavedOffsetPlaysLaterThanEverythingBefore() {
        let recorded: [Int64] = [10_000, 12_500, 20_000]
        var first = TickScheduler(tickInterval: 1)
        var published: [Int64] = []
        for t in recorded { published.append(first.message(at: EventTime(milliseconds: t)).time.milliseconds) }
        #expect(first.nextPassesOffset == nil, "not known before a pass ended")
        let another = first.endOfPass(loop: true)
        #expect(another)
        let saved = first.nextPassesOffset!
        // The second pass plays; the daemon is killed somewhere in it.
        for t in recorded { published.append(first.message(at: EventTime(milliseconds: t)).time.milliseconds) }
        var resumed = TickScheduler(tickInterval: 1, loopOffset: saved)
        let next = recorded.map { resumed.message(at: EventTime(milliseconds: $0)).time.milliseconds }
        #expect(next.first! > published.max()!, "the resumed pass starts after everything published: \(next) after \(published)")
        // Messages keep their place between ticks: the offset is whole ticks.
        #expect(next.map { $0 % 1000 } == recorded.map { $0 % 1000 })
    }
}
