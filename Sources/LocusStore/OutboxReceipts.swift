import LocusCore

/// The receipt side of a service's outbox: which committed events it has published and not yet
/// had back from the hub (`CommandableService.acknowledge`), and acknowledging them in the store.
///
/// Events come back in the order they were published; one that never comes back was dropped on
/// the way (a full queue) and was not delivered either, so a later receipt acknowledges it too
/// rather than leaving it to be published again after a restart.
public struct OutboxReceipts: Sendable {
    /// Published and not yet back, oldest first.
    public private(set) var awaiting: [(id: Int64, topic: String, time: EventTime)] = []

    public init() {}

    /// Events just committed (`ids` from `ServiceStateStore.commit`, or the stored ids of events
    /// published again after a restart), about to be published.
    public mutating func published(_ events: [StoredEvent], ids: [Int64]) {
        for (e, id) in zip(events, ids) { awaiting.append((id, e.topic, e.time)) }
    }

    /// One of the service's own events came back: acknowledges it and everything before it in
    /// the store. A message that matches nothing awaited (another instance's, or already
    /// acknowledged) changes nothing.
    public mutating func receive(_ message: BusMessage, store: ServiceStateStore) throws {
        guard let at = awaiting.firstIndex(where: { $0.topic == message.topic && $0.time == message.time }) else { return }
        let id = awaiting[at].id
        awaiting.removeFirst(at + 1)
        var changes = StateChanges()
        changes.acknowledge(through: id)
        try store.commit(changes)
    }
}
