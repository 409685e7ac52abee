import CZeroMQ

/// One ZeroMQ socket.
///
/// **Thread ownership:** a socket belongs to exactly one thread. Create it, use it and close it on
/// that thread. libzmq only allows handing a socket to another thread after a full memory
/// barrier, and Locus never does that: components that need a socket own a dedicated thread for
/// it. That is why this class is not `Sendable`.
///
/// The socket keeps its `ZMQContext` alive. `close()` is idempotent and also runs in `deinit`.
/// Blocking calls can block forever unless a timeout is set; Locus's loops instead poll with a
/// timeout of at most 100 ms and check their stop flag in between.
public final class ZMQSocket {
    public let type: ZMQSocketType
    public let context: ZMQContext
    /// The libzmq handle; nil once closed.
    private(set) var handle: UnsafeMutableRawPointer?
    /// Reused for receiving copies, so receiving allocates only the returned arrays.
    let scratch: UnsafeMutablePointer<zmq_msg_t>

    /// Creates a socket of `type` in `context` on the calling thread, which then owns it.
    public init(context: ZMQContext, type: ZMQSocketType) throws {
        guard let h = zmq_socket(context.handle, type.rawValue) else { throw ZMQError.last("create a socket") }
        self.context = context
        self.type = type
        self.handle = h
        scratch = .allocate(capacity: 1)
        zmq_msg_init(scratch)
    }

    deinit {
        close()
        zmq_msg_close(scratch)
        scratch.deallocate()
    }

    /// The live handle, or ENOTSOCK once closed.
    @inline(__always) func liveHandle(_ operation: String, endpoint: String? = nil) throws -> UnsafeMutableRawPointer {
        guard let h = handle else { throw ZMQError(code: ENOTSOCK, operation: operation, endpoint: endpoint) }
        return h
    }

    /// Binds to `endpoint`. For `ipc://` endpoints it first creates the parent directory (0700)
    /// and refuses to take over a socket file another process is listening on — libzmq itself
    /// would silently unlink it and steal the address. Errors name the endpoint.
    public func bind(_ endpoint: String) throws {
        let h = try liveHandle("bind", endpoint: endpoint)
        if let path = try? Endpoint.validate(endpoint).ipcFilePath {
            try IPCSocketFile.prepareForBind(path: path, endpoint: endpoint)
        }
        guard zmq_bind(h, endpoint) == 0 else { throw ZMQError.last("bind", endpoint: endpoint) }
    }

    /// Connects to `endpoint`. Succeeds even if nobody listens yet: libzmq reconnects in the background.
    public func connect(_ endpoint: String) throws {
        let h = try liveHandle("connect to", endpoint: endpoint)
        guard zmq_connect(h, endpoint) == 0 else { throw ZMQError.last("connect to", endpoint: endpoint) }
    }

    /// Stops listening on an endpoint given to `bind` (for tcp `*` ports use `lastEndpoint`).
    public func unbind(_ endpoint: String) throws {
        let h = try liveHandle("unbind", endpoint: endpoint)
        guard zmq_unbind(h, endpoint) == 0 else { throw ZMQError.last("unbind", endpoint: endpoint) }
    }

    /// Drops a connection made by `connect` (libzmq stops reconnecting to it).
    public func disconnect(_ endpoint: String) throws {
        let h = try liveHandle("disconnect from", endpoint: endpoint)
        guard zmq_disconnect(h, endpoint) == 0 else { throw ZMQError.last("disconnect from", endpoint: endpoint) }
    }

    /// Closes the socket. Pending outgoing messages are kept for the linger period (set it with
    /// `setOption(.linger(...))`; libzmq's default is to wait forever at context termination).
    /// Idempotent. Must run on the owning thread.
    public func close() {
        guard let h = handle else { return }
        handle = nil
        zmq_close(h)
    }

    public var isClosed: Bool { handle == nil }
}
