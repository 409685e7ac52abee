import CZeroMQ
import Foundation

/// A libzmq context: the I/O threads and the namespace of `inproc://` endpoints.
///
/// Thread-safe (libzmq contexts are), so one context is shared by every socket of a process.
/// Sockets keep their context alive, so the context is terminated only after its last socket
/// is gone, or earlier by `shutdown()`.
public final class ZMQContext: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer
    /// Guards `terminated`.
    private let lock = NSLock()
    private var terminated = false
    /// Whether a `ZAPHandler` serves this context (see `ZMQSocket.bind(_:curve:)`).
    let zapHandler = LockedFlag()

    /// Creates a context with `ioThreads` I/O threads (one is plenty below ~1 GB/s).
    public init(ioThreads: Int = 1) {
        guard let h = zmq_ctx_new() else {
            // Only fails when the process is out of file descriptors or memory; nothing sensible to recover.
            fatalError("zmq_ctx_new failed: \(String(cString: zmq_strerror(zmq_errno())))")
        }
        handle = h
        zmq_ctx_set(h, ZMQ_IO_THREADS, Int32(max(1, ioThreads)))
    }

    /// Shuts the context down: every blocking call on its sockets returns `ETERM` at once, then
    /// this call blocks until every socket of the context is closed (the threads owning them must
    /// close them when they see `ZMQError.isContextTerminated`). Idempotent; callable from any thread.
    public func shutdown() {
        lock.lock()
        let first = !terminated
        terminated = true
        lock.unlock()
        guard first else { return }
        zmq_ctx_shutdown(handle)
        while zmq_ctx_term(handle) != 0 && zmq_errno() == EINTR {}
    }

    /// True once `shutdown()` has been called.
    public var isTerminated: Bool {
        lock.lock()
        defer { lock.unlock() }
        return terminated
    }

    deinit { shutdown() }
}

/// A Bool behind a lock.
final class LockedFlag: @unchecked Sendable {
    /// Guards `stored`.
    private let lock = NSLock()
    private var stored = false
    var value: Bool {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
}
