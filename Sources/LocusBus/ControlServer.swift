import Foundation
import Logging

/// The control endpoint of a running Locus: a REP socket on its own thread. Each request and
/// reply is one frame of UTF-8 JSON; requests are served one at a time.
///
/// Requests that are not one frame of JSON are answered with `ControlReply.error` without
/// reaching the handler; a handler that takes longer than `handlerTimeout` gets an error reply
/// sent in its place, so one bad request cannot wedge the endpoint.
public final class ControlServer: @unchecked Sendable {
    public let endpoint: String
    private let context: ZMQContext
    private let logger: Logger
    private let handlerTimeout: Double
    private let handler: @Sendable ([UInt8]) async -> [UInt8]
    private let stopFlag = StopFlag()
    private let lock = NSLock()
    private var thread: WorkerThread?
    private var started = false

    /// - Parameter handler: called with each request's bytes on a Swift task; returns the reply.
    public init(context: ZMQContext, endpoint: String, logger: Logger, handlerTimeout: Double = 10,
                handler: @escaping @Sendable ([UInt8]) async -> [UInt8]) {
        self.context = context
        self.endpoint = endpoint
        self.logger = logger
        self.handlerTimeout = handlerTimeout
        self.handler = handler
    }

    deinit { stop() }

    /// Binds the endpoint (errors are thrown here, naming it) and starts serving. Call once.
    public func start() throws {
        lock.lock()
        defer { lock.unlock() }
        guard !started else { throw LocusBusError.alreadyStarted("the control server") }
        started = true
        let parsed = try Endpoint.validate(endpoint)
        let startup = StartupResult()
        let loop = ControlLoop(context: context, endpoint: endpoint, ipcFile: parsed.ipcFilePath, logger: logger,
                               handlerTimeout: handlerTimeout, handler: handler, stop: stopFlag)
        let thread = WorkerThread(name: "locus-control") { loop.run(startup: startup) }
        thread.start()
        do {
            try startup.wait()
        } catch {
            thread.join()
            throw error
        }
        self.thread = thread
    }

    /// Stops serving (within ~100 ms, abandoning a request in progress), closes the socket and
    /// removes its ipc file. Idempotent; any thread.
    public func stop() {
        lock.lock()
        let thread = self.thread
        self.thread = nil
        lock.unlock()
        guard let thread else { return }
        stopFlag.set()
        thread.join()
    }
}

/// The REP socket and its loop; runs entirely on the control server's thread.
private final class ControlLoop: @unchecked Sendable {
    let context: ZMQContext
    let endpoint: String
    let ipcFile: String?
    let logger: Logger
    let handlerTimeout: Double
    let handler: @Sendable ([UInt8]) async -> [UInt8]
    let stop: StopFlag

    init(context: ZMQContext, endpoint: String, ipcFile: String?, logger: Logger, handlerTimeout: Double,
         handler: @escaping @Sendable ([UInt8]) async -> [UInt8], stop: StopFlag) {
        self.context = context
        self.endpoint = endpoint
        self.ipcFile = ipcFile
        self.logger = logger
        self.handlerTimeout = handlerTimeout
        self.handler = handler
        self.stop = stop
    }

    func run(startup: StartupResult) {
        let socket: ZMQSocket
        do {
            socket = try ZMQSocket(context: context, type: .rep)
            try socket.setOption(.linger(milliseconds: 0))
            try socket.setOption(.sendTimeout(milliseconds: 1000))
            try socket.bind(endpoint)
        } catch {
            startup.report(error)
            return
        }
        startup.report(nil)
        do {
            while !stop.isSet {
                guard let frames = try socket.receiveMultipart(timeoutMilliseconds: 100) else { continue }
                guard let reply = answer(frames) else { break } // stopping mid-request
                _ = try socket.send([reply])
            }
        } catch let error as ZMQError where error.isContextTerminated {
            logger.debug("control server stopping: the ZeroMQ context was shut down")
        } catch {
            logger.error("control server failed", metadata: ["endpoint": "\(endpoint)", "error": "\(error)"])
        }
        socket.close()
        if let ipcFile { IPCSocketFile.remove(path: ipcFile) }
    }

    /// The reply to one request, or nil if the server is stopping.
    private func answer(_ frames: [[UInt8]]) -> [UInt8]? {
        guard frames.count == 1 else { return ControlReply.error("a request is exactly one frame of JSON, not \(frames.count)") }
        guard ControlReply.isJSONText(frames[0]) else { return ControlReply.error("the request is not valid UTF-8 JSON") }
        if let reply = HandlerBridge.call(handler, with: frames[0], timeout: handlerTimeout, shouldStop: { stop.isSet }) {
            return reply
        }
        if stop.isSet { return nil }
        logger.warning("control request timed out", metadata: ["timeout": "\(handlerTimeout)"])
        return ControlReply.error("the request was not answered within \(ControlClient.format(seconds: handlerTimeout)) s")
    }
}
