import LocusCore
import Testing

@Suite struct SequenceGapTrackerTests {
    @Test func gapsRestartsAndCountsPerProducer() {
        var t = SequenceGapTracker()
        #expect(t.check(producer: "a", seq: 1) == nil)
        #expect(t.check(producer: "a", seq: 2) == nil)
        #expect(t.check(producer: "b", seq: 40) == nil) // first seen: nothing known before it
        #expect(t.check(producer: "a", seq: 6) == SequenceGap(producer: "a", after: 2, seq: 6, missed: 3, restarted: false))
        #expect(t.check(producer: "a", seq: 1) == SequenceGap(producer: "a", after: 6, seq: 1, missed: 0, restarted: true))
        #expect(t.check(producer: "b", seq: 39) == SequenceGap(producer: "b", after: 40, seq: 39, missed: 0, restarted: false))
        #expect(t.missed == ["a": 3] && t.missedTotal == 3 && t.gaps == 3)
        #expect(t.lastSeen == ["a": 1, "b": 39])
    }
}
