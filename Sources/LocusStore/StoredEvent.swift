import LocusCore

/// An event kept in a store's outbox between the commit that produced it and the moment the
/// service sees it delivered (see `ServiceStateStore`).
public struct StoredEvent: Sendable, Equatable {
    /// Assigned by `ServiceStateStore.commit` (increasing, never reused, survives restarts);
    /// ignored on append.
    public var id: Int64
    public var topic: String
    /// Stored as integer milliseconds, so it round-trips exactly.
    public var time: EventTime
    public var eventType: String
    /// The payload object as JSON.
    public var payload: JSONValue

    public init(id: Int64 = 0, topic: String, time: EventTime, eventType: String, payload: JSONValue) {
        self.id = id
        self.topic = topic
        self.time = time
        self.eventType = eventType
        self.payload = payload
    }
}
