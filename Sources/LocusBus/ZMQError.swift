import CZeroMQ
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A libzmq failure as a Swift error, with the operation and (when there is one) the endpoint,
/// so that a caller can show it as is: `cannot bind ipc:///run/locus/bus.sock: Address already in use`.
public struct ZMQError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The `errno` libzmq reported (`EADDRINUSE`, `ETERM`, …).
    public var code: Int32
    /// What was attempted: `bind`, `connect`, `send`, `receive`, …
    public var operation: String
    /// `zmq_strerror(code)`, or a more specific explanation where Locus knows one.
    public var message: String
    public var endpoint: String?

    /// `message` defaults to libzmq's text for `code`.
    public init(code: Int32, operation: String, endpoint: String? = nil, message: String? = nil) {
        self.code = code
        self.operation = operation
        self.endpoint = endpoint
        self.message = message ?? String(cString: zmq_strerror(code))
    }

    /// The error libzmq left in `zmq_errno()` for the call that just failed.
    static func last(_ operation: String, endpoint: String? = nil) -> ZMQError {
        ZMQError(code: zmq_errno(), operation: operation, endpoint: endpoint)
    }

    public var description: String {
        if let endpoint { return "cannot \(operation) \(endpoint): \(message)" }
        return "\(operation) failed: \(message)"
    }

    /// The context was shut down: the owning thread must close its socket and stop.
    public var isContextTerminated: Bool { code == ZMQError.contextTerminated }
    /// A signal interrupted the call; retrying is safe.
    public var isInterrupted: Bool { code == EINTR }
    /// Non-blocking call found nothing to do, or a timeout expired.
    public var isWouldBlock: Bool { code == EAGAIN }

    /// libzmq's `ETERM` (ZMQ_HAUSNUMERO + 53), spelled out because the macro is not always imported.
    public static let contextTerminated: Int32 = 156_384_712 + 53
}
