import Foundation
import LocusCore
import Testing
@testable import LocusBus

/// The hand-over from a subscription's thread to the task consuming it.
@Suite struct FeedQueueTests {
    func message(_ seq: Int) -> BusMessage {
        let raw = RawPayload(eventType: "test.n", schemaVersion: 1, json: Array("{}".utf8))
        return BusMessage(topic: "test.n", envelope: Envelope(type: "test.n", version: 1, producer: "p", seq: UInt64(seq),
                                                              time: EventTime(seconds: Double(seq)), payload: .raw(raw)))
    }

    func messages(_ range: Range<Int>) -> [BusMessage] { range.map(message) }

    func seqs(_ batch: [BusMessage]?) -> [UInt64]? { batch?.map(\.envelope.seq) }

    @Test func takesEverythingPushedInOrderAsOneBatch() async {
        let queue = FeedQueue(limit: 100)
        var first = messages(0..<3)
        var second = messages(3..<5)
        #expect(queue.push(&first) == 0)
        #expect(first.isEmpty)
        #expect(queue.push(&second) == 0)
        #expect(seqs(await queue.take()) == [0, 1, 2, 3, 4])
        queue.finish()
        #expect(await queue.take() == nil)
    }

    @Test func refusesWhatExceedsTheLimitAndTakingMakesRoom() async {
        let queue = FeedQueue(limit: 4)
        var burst = messages(0..<6)
        #expect(queue.push(&burst) == 2)  // the newest two
        var more = messages(6..<7)
        #expect(queue.push(&more) == 1)
        #expect(seqs(await queue.take()) == [0, 1, 2, 3])
        var after = messages(7..<9)
        #expect(queue.push(&after) == 0)
        #expect(seqs(await queue.take()) == [7, 8])
    }

    @Test func aWaitingTakeReturnsOnPushWakeAndFinish() async throws {
        let queue = FeedQueue(limit: 10)
        let pushed = Task { await queue.take() }
        try await Task.sleep(nanoseconds: 50_000_000)
        var one = messages(0..<1)
        _ = queue.push(&one)
        #expect(seqs(await pushed.value) == [0])

        let woken = Task { await queue.take() }
        try await Task.sleep(nanoseconds: 50_000_000)
        queue.wake()
        #expect(seqs(await woken.value) == [])

        // A wake with nothing waiting makes the next take return at once.
        queue.wake()
        #expect(seqs(await queue.take()) == [])

        var last = messages(1..<3)
        _ = queue.push(&last)
        let ended = Task { () -> [[UInt64]?] in [seqs(await queue.take()), seqs(await queue.take())] }
        try await Task.sleep(nanoseconds: 50_000_000)
        queue.finish()
        #expect(await ended.value == [[1, 2], nil])
        var late = messages(3..<4)
        #expect(queue.push(&late) == nil)
    }

    @Test func cancellingTheConsumerEndsTheQueue() async throws {
        let queue = FeedQueue(limit: 10)
        let waiting = Task { await queue.take() }
        try await Task.sleep(nanoseconds: 50_000_000)
        waiting.cancel()
        #expect(await waiting.value == nil)
        var more = messages(0..<1)
        #expect(queue.push(&more) == nil)  // the pusher learns nobody reads any more
    }

    @Test func theStreamGivesTheMessagesOneAtATimeThenEnds() async {
        let queue = FeedQueue(limit: 100)
        var burst = messages(0..<3)
        _ = queue.push(&burst)
        queue.wake()  // an empty batch in between is skipped
        var more = messages(3..<5)
        _ = queue.push(&more)
        queue.finish()
        var got: [UInt64] = []
        for await m in queue.stream() { got.append(m.envelope.seq) }
        #expect(got == [0, 1, 2, 3, 4])
    }
}
