import CNATS
import Synchronization

/// Lets another thread end the requests of a connection that belongs to its own thread: a
/// stopping plugin closes it so that a request waiting for NATS (up to `timeout` seconds, when a
/// node does not answer) returns at once and every later one fails at once, instead of holding
/// the stop past its budget. libnats's close is safe from any thread; the owner arms the handle
/// with its connection and disarms it before it lets go of it, so a close never reaches a
/// connection already destroyed.
public final class NATSInterrupt: Sendable {
    /// The armed connection's address (0: none) and whether `close` was called.
    private let state = Mutex<(address: Int, closed: Bool)>((0, false))

    public init() {}

    /// From now on `close` ends `connection`'s requests (at once when it was already called).
    public func arm(_ connection: NATSConnection) {
        let address = Int(bitPattern: connection.connection)
        state.withLock { s in
            s.address = address
            if s.closed { natsConnection_Close(connection.connection) }
        }
    }

    /// Before the owner lets go of the connection.
    public func disarm() { state.withLock { $0.address = 0 } }

    /// Closes the armed connection (and any armed later): its waiting request returns.
    public func close() {
        state.withLock { s in
            s.closed = true
            if s.address != 0, let pointer = OpaquePointer(bitPattern: s.address) { natsConnection_Close(pointer) }
        }
    }

    public var isClosed: Bool { state.withLock { $0.closed } }
}
