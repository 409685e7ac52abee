/// Where the hub writes the messages it accepts before it forwards them (docs/protocol.md 13.1).
/// The hub calls every method from its own thread only, in this order per burst: `takes` and
/// `append` for each accepted message, `commit` once before forwarding them; `maintain` when
/// idle. An implementer must never block for long (the hub waits) and must never throw: a
/// failure to write is counted by the journal and the hub forwards anyway.
public protocol MessageJournal: AnyObject, Sendable {
    /// True if messages on `topic` (its bytes) are journaled.
    func takes(topic: UnsafeRawBufferPointer) -> Bool
    /// Buffers one message for the next `commit`.
    func append(topic: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer)
    /// Hands what was buffered to the file system. Returns false if it could not be written.
    @discardableResult func commit() -> Bool
    /// Housekeeping (retention), about every 100 ms; should be cheap when there is nothing to do.
    func maintain()
}
