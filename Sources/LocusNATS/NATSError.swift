import CNATS

/// A libnats call that failed: what Locus was doing, libnats's status, JetStream's error code when
/// the server gave one, and libnats's own text for it.
public struct NATSError: Error, CustomStringConvertible, Sendable {
    public var operation: String
    public var status: UInt32
    /// JetStream's error code (`10071` wrong last sequence, …); 0 when the server gave none.
    public var jetStreamCode: UInt32
    public var message: String

    public var description: String { "\(operation): \(message)" }

    init(operation: String, message: String) {
        self.operation = operation
        status = NATS_ERR.rawValue
        jetStreamCode = 0
        self.message = message
    }

    init(operation: String, status: natsStatus, code: jsErrCode = jsErrCode(0)) {
        self.operation = operation
        self.status = status.rawValue
        jetStreamCode = code.rawValue
        // The thread's last error text says more than the status name ("wrong last sequence: 7").
        var last = NATS_OK
        let detail = nats_GetLastError(&last).map { String(cString: $0) } ?? ""
        let name = natsStatus_GetText(status).map { String(cString: $0) } ?? "status \(status.rawValue)"
        message = detail.isEmpty || last != status ? name : detail
    }

    /// A compare-and-set that found another revision: someone else wrote the key first.
    public var isWrongLastSequence: Bool { jetStreamCode == JSStreamWrongLastSequenceErr.rawValue }
    public var isTimeout: Bool { status == NATS_TIMEOUT.rawValue }
    public var isNotFound: Bool { status == NATS_NOT_FOUND.rawValue }
}

/// Throws a `NATSError` for anything but `NATS_OK`.
@inline(__always)
func check(_ status: natsStatus, _ operation: @autoclosure () -> String, code: jsErrCode = jsErrCode(0)) throws {
    guard status == NATS_OK else { throw NATSError(operation: operation(), status: status, code: code) }
}
