import LocusCore
import LocusStore

/// The acknowledgement side of the store's outbox, as the region service does it: events are
/// committed with the state that caused them, published, and acknowledged when they come back
/// through the hub. Kept in one type so a change of how acknowledgement works (the lead may move
/// it to the runtime's hand-over) touches only this file.
struct BeaconOutbox {
    /// Outbox events published and not yet seen back through the hub, oldest first.
    private(set) var awaitingEcho: [(id: Int64, topic: String, time: EventTime)] = []

    /// Topic prefixes the service subscribes to for the echo of its outboxed events (ranging
    /// and state snapshots are not outboxed, so their echo is not asked for).
    static let echoTopics = [BeaconEnterKind.topicPrefix, BeaconExitKind.topicPrefix]

    /// Events committed in one transaction (ids from `ServiceStateStore.commit`), about to be published.
    mutating func published(_ events: [StoredEvent], ids: [Int64]) {
        for (e, id) in zip(events, ids) { awaitingEcho.append((id, e.topic, e.time)) }
    }

    /// One of the service's own events came back: acknowledges it and everything before it.
    mutating func echo(_ message: BusMessage, store: ServiceStateStore) throws {
        guard let at = awaitingEcho.firstIndex(where: { $0.topic == message.topic && $0.time == message.time }) else { return }
        // Events before it that never came back were dropped on the way (a full queue): they
        // were not delivered either, and are not published again.
        let id = awaitingEcho[at].id
        awaitingEcho.removeFirst(at + 1)
        var changes = StateChanges()
        changes.acknowledge(through: id)
        try store.commit(changes)
    }
}
