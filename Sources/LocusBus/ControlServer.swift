import Foundation
import Logging

/// The control endpoint of a running Locus: a ROUTER socket on its own thread, answering REQ
/// clients (`locus ctl`, `zmq.REQ`). Each request and reply is one frame of UTF-8 JSON.
///
/// Requests are answered concurrently: each runs on a task of its own and its reply is sent by
/// the socket's thread when it is ready, so a slow command (a service working through a large
/// change) never holds up `status` for anyone else. There is no server-side timeout that would
/// reply "failed" while the command goes on: a reply is the command's real outcome. Limits keep
/// one client from taking memory: a request over `maxRequestBytes` gets an error reply without
/// reaching the handler (one over `connectionCutoff` is cut off by ZeroMQ with the connection), and
/// at most `maxConcurrentRequests` run at once (beyond, an immediate "busy" error). Each refusal
/// is counted in `statistics`.
/// Immutable after init: every stored property is a `let` of a thread-safe type.
public final class ControlServer: @unchecked Sendable {
    public let endpoint: String
    /// Set when the endpoint is bound with CURVE.
    public let curve: CurveServer?
    private let context: ZMQContext
    private let logger: Logger
    private let maxRequestBytes: Int
    private let maxConcurrentRequests: Int
    private let requestsPerSecond: Double
    private let handler: @Sendable ([UInt8]) async -> [UInt8]
    private let worker = SocketWorker(thread: "locus-control", for: "the control server")
    private let counters = ControlCounters()

    /// - Parameters:
    ///   - limits: the largest request answered and the requests per second one client may send.
    ///   - handler: called with each request's bytes on a Swift task; returns the reply.
    public init(context: ZMQContext, endpoint: String, logger: Logger, limits: ControlLimits = ControlLimits(),
                maxConcurrentRequests: Int = 64, curve: CurveServer? = nil,
                handler: @escaping @Sendable ([UInt8]) async -> [UInt8]) {
        self.requestsPerSecond = limits.requestsPerSecond
        self.curve = curve
        self.context = context
        self.endpoint = endpoint
        self.logger = logger
        self.maxRequestBytes = limits.maxRequestBytes
        self.maxConcurrentRequests = maxConcurrentRequests
        self.handler = handler
    }

    /// Request size past which ZeroMQ drops the connection without a reply: twice the limit, at
    /// least 16 MiB (so a polygon file of a few megabytes still gets a clear "too large").
    public static func connectionCutoff(_ maxRequestBytes: Int) -> Int { max(2 * maxRequestBytes, 16 << 20) }

    /// Requests answered and refused so far. Thread-safe.
    public var statistics: ControlStatistics { counters.snapshot }

    deinit { stop() }

    /// Binds the endpoint (errors are thrown here, naming it) and starts serving. Call once.
    public func start() throws {
        let parsed = try Endpoint.validate(endpoint)
        let loop = ControlLoop(context: context, endpoint: endpoint, curve: curve, ipcFile: parsed.ipcFilePath, logger: logger,
                               maxRequestBytes: maxRequestBytes, maxConcurrentRequests: maxConcurrentRequests,
                               limiter: ClientRateLimiter(perSecond: requestsPerSecond),
                               handler: handler, stop: worker.stopFlag, counters: counters)
        try worker.start { startup in loop.run(startup: startup) }
    }

    /// Stops serving (within ~100 ms, abandoning a request in progress), closes the socket and
    /// removes its ipc file. Idempotent; any thread.
    public func stop() { worker.stop() }
}

/// The ROUTER socket and its loop; the socket is used only on the control server's thread.
/// So is `limiter`, its one `var`; the handler tasks it starts capture only thread-safe `let`s.
private final class ControlLoop: @unchecked Sendable {
    let context: ZMQContext
    let endpoint: String
    let curve: CurveServer?
    let ipcFile: String?
    let logger: Logger
    let maxRequestBytes: Int
    let maxConcurrentRequests: Int
    var limiter: ClientRateLimiter
    let handler: @Sendable ([UInt8]) async -> [UInt8]
    let stop: StopFlag
    let counters: ControlCounters
    /// Replies finished by handler tasks, waiting for the socket's thread to send them.
    private let outbox = ReplyOutbox()

    init(context: ZMQContext, endpoint: String, curve: CurveServer?, ipcFile: String?, logger: Logger, maxRequestBytes: Int,
         maxConcurrentRequests: Int, limiter: ClientRateLimiter, handler: @escaping @Sendable ([UInt8]) async -> [UInt8], stop: StopFlag,
         counters: ControlCounters) {
        self.context = context
        self.endpoint = endpoint
        self.curve = curve
        self.ipcFile = ipcFile
        self.logger = logger
        self.maxRequestBytes = maxRequestBytes
        self.maxConcurrentRequests = maxConcurrentRequests
        self.limiter = limiter
        self.handler = handler
        self.stop = stop
        self.counters = counters
    }

    func run(startup: StartupResult) {
        let socket: ZMQSocket
        do {
            socket = try ZMQSocket(context: context, type: .router)
            try socket.setOption(.linger(milliseconds: 0))
            // Bounds what one request can take before it is looked at (ZeroMQ drops the
            // connection past it); between the limit and this, the client gets a clear error.
            try socket.setOption(.maxMessageSize(ControlServer.connectionCutoff(maxRequestBytes)))
            try socket.bind(endpoint, curve: curve)
        } catch {
            startup.report(error)
            return
        }
        startup.report(nil)
        do {
            while !stop.isSet {
                // Short waits: replies of finished handlers are sent between two waits.
                if let frames = try socket.receiveMultipart(timeoutMilliseconds: 5) { try dispatch(frames, on: socket) }
                for (route, reply) in outbox.take() {
                    // A requester that gave up (its REQ socket closed) is gone: ROUTER drops it.
                    _ = try socket.send(route + [[], reply], dontWait: true)
                }
            }
        } catch let error as ZMQError where error.isContextTerminated {
            logger.debug("control server stopping: the ZeroMQ context was shut down")
        } catch {
            logger.error("control server failed", metadata: ["endpoint": "\(endpoint)", "error": "\(error)"])
        }
        socket.close()
        if let ipcFile { IPCSocketFile.remove(path: ipcFile) }
    }

    /// A request from a REQ client arrives as its routing id(s), an empty delimiter, then its frames.
    private func dispatch(_ frames: [[UInt8]], on socket: ZMQSocket) throws {
        guard let delimiter = frames.firstIndex(where: \.isEmpty), delimiter > 0 else {
            counters.count(.malformed)
            return  // not a REQ envelope: nothing to reply to
        }
        let route = Array(frames[..<delimiter])
        let body = Array(frames[(delimiter + 1)...])
        func refuse(_ reason: ControlStatistics.Refusal, _ message: String) throws {
            counters.count(reason)
            _ = try socket.send(route + [[], ControlReply.error(message)], dontWait: true)
        }
        // Per connection (a REQ socket's routing id), before anything else is looked at.
        guard limiter.allow(route.last ?? []) else {
            return try refuse(.rateLimited, "more than \(ControlClient.format(seconds: limiter.perSecond)) requests per second from this client (hub.control_requests_per_second); nothing was changed, slow down")
        }
        guard body.count == 1 else { return try refuse(.malformed, "a request is exactly one frame of JSON, not \(body.count)") }
        guard body[0].count <= maxRequestBytes else {
            return try refuse(.tooLarge, "the request is \(body[0].count) bytes, over the control socket's limit of \(maxRequestBytes) bytes (hub.control_max_request_bytes); nothing was changed")
        }
        guard ControlReply.isJSONText(body[0]) else { return try refuse(.malformed, "the request is not valid UTF-8 JSON") }
        guard counters.begin(limit: maxConcurrentRequests) else {
            return try refuse(.busy, "the control socket is busy with \(maxConcurrentRequests) requests; nothing was changed, try again")
        }
        let request = body[0]
        Task { [handler, outbox, counters] in
            let reply = await handler(request)
            counters.end()
            outbox.put(route, reply)
        }
    }
}

/// Replies ready to send, handed from handler tasks to the socket's thread.
private final class ReplyOutbox: @unchecked Sendable {
    /// Guards `ready`.
    private let lock = NSLock()
    private var ready: [(route: [[UInt8]], reply: [UInt8])] = []

    func put(_ route: [[UInt8]], _ reply: [UInt8]) { lock.withLock { ready.append((route, reply)) } }

    func take() -> [(route: [[UInt8]], reply: [UInt8])] {
        lock.withLock {
            defer { ready = [] }
            return ready
        }
    }
}
