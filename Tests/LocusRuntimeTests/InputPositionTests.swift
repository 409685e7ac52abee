import LocusCore
@testable import LocusRuntime
import Testing

/// How the runner recognises, after a restart, the input a service already processed.
struct InputPositionTests {
    func message(_ topic: String = "obs.fix.gps0", producer: String = "walk", ms: Int64, seq: UInt64 = 1) -> BusMessage {
        let fix = Fix(source: "gps0", mode: .threeD, latitude: 46, longitude: 14)
        return BusMessage(topic: topic, envelope: Envelope(producer: producer, seq: seq, time: EventTime(milliseconds: ms), payload: fix))
    }

    @Test func aRestartedReplaySkipsWhatWasProcessedIncludingMessagesAtTheSameTime() {
        var before = InputPosition()
        for m in [message(ms: 1000), message(ms: 2000), message(ms: 2000), message(ms: 3000)] { before.processed(m) }
        // Two messages at 3000 exist in the input; only the first was processed before the kill.
        let committed = Dictionary(uniqueKeysWithValues: before.takeChanged().map { ($0.key, $0.mark) })
        #expect(committed[InputPosition.key(producer: "walk", topic: "obs.fix.gps0")] == .init(time: 3000, count: 1))
        var after = InputPosition(committed: committed)
        let replayed = [message(ms: 1000), message(ms: 2000), message(ms: 2000), message(ms: 3000), message(ms: 3000), message(ms: 4000)]
        var skipped: [Bool] = []
        for m in replayed { skipped.append(after.alreadyProcessed(m)) }
        #expect(skipped == [true, true, true, true, false, false])
    }

    @Test func skippingEndsAtTheFirstNewMessageSoALateOneIsProcessedLater() {
        var after = InputPosition(committed: [InputPosition.key(producer: "walk", topic: "obs.fix.gps0"): .init(time: 5000, count: 1)])
        let skipped1 = after.alreadyProcessed(message(ms: 6000))
        #expect(!skipped1)
        // A live source's occasional late message, once past the restart: processed as before.
        let skipped2 = after.alreadyProcessed(message(ms: 4000))
        #expect(!skipped2)
    }

    @Test func positionsArePerProducerAndTopic() {
        var after = InputPosition(committed: [InputPosition.key(producer: "walk", topic: "obs.fix.gps0"): .init(time: 5000, count: 1)])
        let skipped3 = after.alreadyProcessed(message(ms: 4000))
        #expect(skipped3)
        let skipped4 = after.alreadyProcessed(message("obs.fix.gps1", ms: 4000))
        #expect(!skipped4)
        let skipped5 = after.alreadyProcessed(message(producer: "other", ms: 4000))
        #expect(!skipped5)
    }

    @Test func aLateMessageDoesNotMoveThePositionBack() {
        var p = InputPosition()
        p.processed(message(ms: 5000))
        p.processed(message(ms: 4000))
        #expect(p.marks.values.first == .init(time: 5000, count: 1))
    }

    @Test func marksRoundTripAndDamagedTextIsRefused() {
        let mark = InputPosition.Mark(time: 1_700_000_000_123, count: 3)
        #expect(InputPosition.mark(fromText: InputPosition.text(mark)) == mark)
        for bad in ["", "[1]", "[a,1]", "[1,-1]", "1,2", "[1,2,3]"] { #expect(InputPosition.mark(fromText: bad) == nil, "\(bad)") }
    }

    /// A run of messages from one pair builds its key and marks it changed once; a run that goes
    /// on past a commit is marked changed again in the next.
    @Test func aRunThatGoesOnPastACommitIsChangedInTheNextOne() {
        var position = InputPosition()
        for ms in [1000, 2000, 3000] as [Int64] { position.processed(message(ms: ms)) }
        position.processed(message("obs.fix.gps1", ms: 1500))
        position.processed(message(ms: 3000))
        let first = position.takeChanged().sorted { $0.key < $1.key }
        #expect(first.map(\.key) == ["walk obs.fix.gps0", "walk obs.fix.gps1"])
        #expect(first.map(\.mark) == [.init(time: 3000, count: 2), .init(time: 1500, count: 1)])
        position.processed(message(ms: 4000))
        #expect(position.takeChanged().map(\.key) == ["walk obs.fix.gps0"])
        #expect(position.takeChanged().isEmpty)
    }
}

/// What the runner tells the delivery gate of a handled batch.
struct ConsumedMarksTests {
    @Test func eachRunOfOneProducerEndsWithItsLastSequenceNumber() {
        let fix = Fix(source: "gps0", mode: .threeD, latitude: 46, longitude: 14)
        let batch = [("gps", 1), ("gps", 2), ("phone", 7), ("gps", 3), ("gps", 4), ("gps", 5), ("phone", 8)].map { producer, seq in
            BusMessage(topic: "obs.fix.\(producer)", envelope: Envelope(producer: producer, seq: UInt64(seq), time: EventTime(milliseconds: 0), payload: fix))
        }
        let marks = ConsumedMarks(batch).marks
        #expect(marks.map(\.producer) == ["gps", "phone", "gps", "phone"])
        #expect(marks.map(\.seq) == [2, 7, 5, 8])
        #expect(ConsumedMarks([BusMessage]()).marks.isEmpty)
    }
}
