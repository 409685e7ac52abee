import Foundation
import LocusCore
import Testing
import LocusStore

/// Receipts acknowledge what came back and everything published before it; anything else
/// leaves the outbox as it was.
@Suite struct OutboxReceiptsTests {
    let dir = TemporaryDirectory()

    static func event(_ topic: String, _ ms: Int64) -> StoredEvent {
        StoredEvent(topic: topic, time: EventTime(milliseconds: ms), eventType: "region.enter", payload: .object(["n": .number(Double(ms))]))
    }

    static func message(_ topic: String, _ ms: Int64) -> BusMessage {
        let envelope = Envelope(type: ClockTick.eventType, version: 1, producer: "fences", seq: 1, time: EventTime(milliseconds: ms),
                                payload: .typed(ClockTick(basis: .recorded, interval: 1)))
        return BusMessage(topic: topic, envelope: envelope)
    }

    @Test func aReceiptAcknowledgesItsEventAndThoseBeforeIt() throws {
        let store = try ServiceStateStore(path: dir.file("r.sqlite"), kind: "region")
        let events = [Self.event("region.enter.a", 1000), Self.event("region.exit.a", 2000), Self.event("region.enter.b", 3000)]
        var changes = StateChanges()
        for e in events { changes.append(e) }
        let ids = try store.commit(changes)
        var receipts = OutboxReceipts()
        receipts.published(events, ids: ids)

        // Not one of ours (other topic, or same topic at another time): nothing changes.
        try receipts.receive(Self.message("region.enter.c", 1000), store: store)
        try receipts.receive(Self.message("region.exit.a", 2500), store: store)
        #expect(try store.unacknowledgedEvents().map(\.id) == ids)
        #expect(receipts.awaiting.count == 3)

        // The second came back; the first never will (dropped on the way): both are done.
        try receipts.receive(Self.message("region.exit.a", 2000), store: store)
        #expect(try store.unacknowledgedEvents().map(\.id) == [ids[2]])
        #expect(receipts.awaiting.map(\.id) == [ids[2]])

        // A repeat of an acknowledged receipt is ignored.
        try receipts.receive(Self.message("region.exit.a", 2000), store: store)
        #expect(try store.unacknowledgedEvents().map(\.id) == [ids[2]])
    }
}
