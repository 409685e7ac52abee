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

    /// Issue 30 item 1: a replay's fixes and ticks share its seq, so a subscriber to `obs.fix.`
    /// saw a "gap" at every fix. Compared per topic, interleaved topics are no gap; a jump on
    /// one topic is, with its topic and count; seq still gives the resume position.
    @Test func perTopicComparesTopicSeqAndStillKeepsTheProducersSeq() {
        var t = SequenceGapTracker(perTopic: true)
        // seq 1..6 across fix and tick topics; the subscriber sees only the fixes (seq 1, 3, 5).
        #expect(t.check(producer: "walk", seq: 1, topic: "obs.fix.walk", topicSeq: 1) == nil)
        #expect(t.check(producer: "walk", seq: 3, topic: "obs.fix.walk", topicSeq: 2) == nil)
        #expect(t.check(producer: "walk", seq: 5, topic: "obs.fix.walk", topicSeq: 3) == nil)
        #expect(t.check(producer: "walk", seq: 6, topic: "clock.tick", topicSeq: 40) == nil) // a topic first seen now
        #expect(t.gaps == 0 && t.lastSeen == ["walk": 6])
        #expect(t.check(producer: "walk", seq: 9, topic: "obs.fix.walk", topicSeq: 5)
                == SequenceGap(producer: "walk", topic: "obs.fix.walk", after: 3, seq: 5, missed: 1, restarted: false))
        #expect(t.check(producer: "walk", seq: 1, topic: "obs.fix.walk", topicSeq: 1)
                == SequenceGap(producer: "walk", topic: "obs.fix.walk", after: 5, seq: 1, missed: 0, restarted: true))
        #expect(t.check(producer: "walk", seq: 2, topic: "clock.tick", topicSeq: 1)?.restarted == true)
        #expect(t.missed == ["walk": 1] && t.gaps == 3 && t.lastSeen == ["walk": 2])
        // Without topic_seq (a publisher of protocol 1) it falls back to seq.
        #expect(t.check(producer: "old", seq: 4, topic: "obs.fix.old") == nil)
        #expect(t.check(producer: "old", seq: 7, topic: "obs.fix.old")
                == SequenceGap(producer: "old", after: 4, seq: 7, missed: 2, restarted: false))
    }

    /// Subscribed to everything, seq is the stronger check (it sees a topic lost whole), so
    /// topic_seq is not used then.
    @Test func subscribedToEverythingItComparesSeq() {
        var t = SequenceGapTracker()
        #expect(t.check(producer: "p", seq: 1, topic: "a", topicSeq: 1) == nil)
        #expect(t.check(producer: "p", seq: 3, topic: "a", topicSeq: 2) == SequenceGap(producer: "p", after: 1, seq: 3, missed: 1, restarted: false))
    }

    @Test func topicPositionsAreBounded() {
        var t = SequenceGapTracker(perTopic: true)
        for k in 0..<SequenceGapTracker.topicLimit { _ = t.check(producer: "p", seq: UInt64(k + 1), topic: "t.\(k)", topicSeq: 5) }
        #expect(t.check(producer: "p", seq: 1_000_000, topic: "t.0", topicSeq: 9)?.missed == 3)
        // One more topic forgets them all: t.1 then counts as first seen, nothing invented.
        #expect(t.check(producer: "p", seq: 1_000_001, topic: "t.new", topicSeq: 1) == nil)
        #expect(t.check(producer: "p", seq: 1_000_002, topic: "t.1", topicSeq: 50) == nil)
    }
}

@Suite struct TopicSequencesTests {
    @Test func numbersEachTopicFromOneAndStartsOverPastTheLimit() {
        var s = TopicSequences()
        #expect([s.next("obs.fix.a"), s.next("clock.tick"), s.next("obs.fix.a"), s.next("obs.fix.a"), s.next("clock.tick")] == [1, 1, 2, 3, 2])
        for k in 2..<TopicSequences.limit { #expect(s.next("t.\(k)") == 1) }
        #expect(s.count == TopicSequences.limit && s.next("obs.fix.a") == 4)
        #expect(s.next("one.more") == 1 && s.count == 1)
        #expect(s.next("obs.fix.a") == 1)
    }

    /// The publisher plugins use stamps both numbers.
    @Test func thePublisherWritesTopicSeq() throws {
        let outlet = MemoryOutlet()
        let p = EventPublisher(producer: "walk", outlet: outlet)
        let t = EventTime(milliseconds: 1_715_932_800_000)
        for topic in ["obs.fix.walk", "clock.tick", "obs.fix.walk"] {
            p.publish(ClockTick(basis: .recorded, interval: 1), topic: topic, time: t)
        }
        let envelopes = try outlet.take().map { try EnvelopeCodec.decode($0.body, registry: .core) }
        #expect(envelopes.map(\.seq) == [1, 2, 3])
        #expect(envelopes.map(\.topicSeq) == [1, 1, 2])
    }
}
