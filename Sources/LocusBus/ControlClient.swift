import Foundation

/// Sends one control request to a running Locus and waits for the reply (used by the CLI).
///
/// `request` runs entirely on the calling thread (the REQ socket is created and closed there),
/// so any thread may call it; it blocks for at most `timeout` seconds.
public struct ControlClient: Sendable {
    public let context: ZMQContext

    /// Uses `context`, or a fresh one (fine for one-shot CLI use).
    public init(context: ZMQContext = ZMQContext()) {
        self.context = context
    }

    /// Sends `json` (one frame) to the control endpoint and returns the reply frame.
    /// - Throws: `ControlClientError` when nothing answers in time or nothing listens at an
    ///   ipc path; `EndpointError`/`ZMQError` for a bad endpoint or socket failure.
    public func request(_ json: [UInt8], endpoint: String, timeout: Double, curve: CurveClient? = nil) throws -> [UInt8] {
        let parsed = try Endpoint.validate(endpoint)
        if let path = parsed.ipcFilePath, !FileManager.default.fileExists(atPath: path) {
            throw ControlClientError(kind: .notListening, endpoint: endpoint, timeout: timeout)
        }
        let socket = try ZMQSocket(context: context, type: .req)
        defer { socket.close() }
        // Discard the request at close if it never went out: the CLI must not hang on exit.
        try socket.setOption(.linger(milliseconds: 0))
        try socket.setOption(.sendTimeout(milliseconds: Int(timeout * 1000)))
        // CURVE is for tcp endpoints; an ipc one is protected by file permissions.
        if let curve, endpoint.hasPrefix("tcp://") { try socket.setCurveClient(curve) }
        try socket.connect(endpoint)
        guard try socket.send([json]) else { throw ControlClientError(kind: .noReply, endpoint: endpoint, timeout: timeout) }
        let deadline = DispatchTime.now() + timeout
        while DispatchTime.now() < deadline {
            let left = Double(deadline.uptimeNanoseconds &- DispatchTime.now().uptimeNanoseconds) / 1e6
            let slice = max(1, min(100, Int(left.rounded(.up))))
            if let frames = try socket.receiveMultipart(timeoutMilliseconds: slice) {
                return frames.first ?? []
            }
        }
        throw ControlClientError(kind: .noReply, endpoint: endpoint, timeout: timeout)
    }

    /// `request` with a context of its own, for one-shot use (the CLI).
    public static func request(_ json: [UInt8], endpoint: String, timeout: Double, curve: CurveClient? = nil) throws -> [UInt8] {
        try ControlClient().request(json, endpoint: endpoint, timeout: timeout, curve: curve)
    }

    /// `5` for whole seconds, `0.5` otherwise.
    static func format(seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e9 ? String(Int(seconds)) : String(seconds)
    }
}

/// A control request that got no answer.
public struct ControlClientError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// Nothing replied within the timeout.
        case noReply
        /// The ipc socket file does not exist.
        case notListening
    }

    public var kind: Kind
    public var endpoint: String
    public var timeout: Double

    /// Public so that the other commands that connect to the daemon (`sub`, `record`) say
    /// `.notListening` in the same words.
    public init(kind: Kind, endpoint: String, timeout: Double) {
        self.kind = kind
        self.endpoint = endpoint
        self.timeout = timeout
    }

    public var description: String {
        switch kind {
        case .noReply:
            // The daemon does not cancel a command it has handed on: say so, rather than imply
            // nothing happened.
            return "no reply from \(endpoint) within \(ControlClient.format(seconds: timeout)) s — is `locus run` running? "
                + "If it is, the request may still be in progress (a command a service has begun is completed, not undone): "
                + "check its effect before sending it again, or use a longer --timeout"
        case .notListening:
            return "nothing is listening at \(endpoint) (no socket file) — is `locus run` running?"
        }
    }
}
