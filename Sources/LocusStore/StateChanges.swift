import LocusCore

/// A batch of changes that `ServiceStateStore.commit` applies in one transaction, all or
/// nothing, in the order they were added (a put then a delete of the same key deletes it).
public struct StateChanges: Sendable {
    enum Change: Sendable {
        case put(collection: String, key: String, value: JSONValue)
        case delete(collection: String, key: String)
        case deleteAll(collection: String)
        case setMeta(key: String, value: String?)
        case putText(collection: String, key: String, text: String)
        case appendEnvelopes(time: EventTime, text: String)
        case acknowledge(throughID: Int64)
        case deleteOutboxRow(id: Int64)
    }

    private(set) var changes: [Change] = []

    public init() {}

    public var isEmpty: Bool { changes.isEmpty }

    /// Number of changes added so far.
    public var count: Int { changes.count }

    /// Sets `key` of `collection` to `value` (inserting or replacing). `collection` must not
    /// be empty; `value` must not hold a NaN or infinite number (the commit fails otherwise).
    public mutating func put(_ collection: String, key: String, value: JSONValue) {
        changes.append(.put(collection: collection, key: key, value: value))
    }

    /// Removes `key` from `collection`; no effect when absent.
    public mutating func delete(_ collection: String, key: String) {
        changes.append(.delete(collection: collection, key: key))
    }

    /// Removes every record of `collection`.
    public mutating func deleteAll(in collection: String) {
        changes.append(.deleteAll(collection: collection))
    }

    /// Sets a service-level value (a cursor, a config fingerprint, …); nil deletes it.
    public mutating func setMeta(_ key: String, _ value: String?) {
        changes.append(.setMeta(key: key, value: value))
    }

    /// Sets `key` of `collection` to `text`, which must already be one JSON value (a service
    /// state encoded by `ServiceStateCoding`): stored as it is, with no parse.
    public mutating func put(_ collection: String, key: String, json text: String) {
        changes.append(.putText(collection: collection, key: key, text: text))
    }

    /// Appends encoded envelopes to the outbox as ONE row (`EnvelopeBatch`), in order: what a
    /// runtime commit does with a batch's events. Read back, one by one, with
    /// `pendingEnvelopes()`. Nothing is appended for an empty list.
    public mutating func append(envelopes: [(topic: String, body: [UInt8])], time: EventTime) {
        guard !envelopes.isEmpty else { return }
        changes.append(.appendEnvelopes(time: time, text: EnvelopeBatch.text(envelopes)))
    }

    /// Appends every change of `other`, after this batch's own.
    public mutating func append(contentsOf other: StateChanges) {
        changes.append(contentsOf: other.changes)
    }

    /// Deletes the one outbox row `id` (one that does not read back).
    public mutating func deleteOutboxRow(_ id: Int64) {
        changes.append(.deleteOutboxRow(id: id))
    }

    /// Acknowledges (deletes) outbox events with id <= `id`.
    public mutating func acknowledge(through id: Int64) {
        changes.append(.acknowledge(throughID: id))
    }
}
