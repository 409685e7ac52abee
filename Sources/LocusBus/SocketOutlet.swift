import Foundation
import LocusCore
import Logging

/// The in-process publisher: a `MessageOutlet` that sends to the hub's ingest over ZeroMQ.
///
/// `send(topic:body:)` may be called from any thread or task; it only enqueues (order is kept)
/// and the outlet's own thread does the sending, because the socket must stay on one thread.
/// The socket is an XPUB — it sends like a PUB but also receives subscriptions — so the thread
/// can wait for the hub's subscribe-all before sending anything; otherwise the first messages
/// would vanish while the connection is set up (the "slow joiner" problem).
///
/// Call `close(drainTimeout:)` when done (deinit closes without draining).
/// Immutable after init: every stored property is a `let` of a thread-safe type.
public final class SocketOutlet: MessageOutlet, @unchecked Sendable {
    public let endpoint: String
    private let queue: OutletQueue
    private let ready = ReadySignal()
    private let counters = OutletCounters()
    private let worker = SocketWorker(thread: "locus-outlet", for: "the outlet")
    private let logger: Logger

    /// Connects (on the outlet's new thread) to `endpoint` — by default the hub's in-process
    /// ingest, which must use the same `context`. Returns without waiting for the hub; messages
    /// sent meanwhile are queued and go out once the hub has subscribed, or after
    /// `subscriptionTimeout` seconds without it (then they are lost if no hub is there).
    ///
    /// - Parameters:
    ///   - highWaterMark: ZeroMQ send queue limit in messages; 0 = never drop. At a non-zero
    ///     limit, messages beyond it are dropped and counted in `droppedCount`.
    ///   - maxQueued: messages `send` may queue before it blocks its caller until the thread
    ///     catches up (backpressure rather than unbounded memory).
    /// - Throws: `EndpointError` or `ZMQError` if the socket cannot be set up.
    public init(context: ZMQContext, endpoint: String = HubConfiguration.inprocIngest, highWaterMark: Int = 100_000,
                subscriptionTimeout: Double = 5, maxQueued: Int = 65_536, logger: Logger) throws {
        _ = try Endpoint.validate(endpoint)
        self.endpoint = endpoint
        self.logger = logger
        let queue = OutletQueue(capacity: maxQueued)
        self.queue = queue
        let sender = OutletSender(context: context, endpoint: endpoint, highWaterMark: highWaterMark,
                                  subscriptionTimeout: subscriptionTimeout, queue: queue, ready: ready,
                                  counters: counters, logger: logger)
        try worker.start { startup in sender.run(startup: startup) }
    }

    deinit { close(drainTimeout: 0) }

    /// Queues one message. Any thread or task; blocks only while `maxQueued` messages wait.
    /// After `close` messages are refused (counted in `droppedCount`).
    public func send(topic: String, body: [UInt8]) {
        if !queue.push(topic: topic, body: body) {
            counters.noteRefusedAfterClose(logger: logger)
        }
    }

    /// Waits until the hub's subscription arrived (true) or `timeout` seconds passed.
    public func waitUntilReady(timeout: Double) -> Bool { ready.wait(timeout: timeout) }

    /// Messages dropped: at the high-water mark, or sent after `close`.
    public var droppedCount: UInt64 { counters.dropped + queue.refusedCount }

    /// Messages handed to ZeroMQ.
    public var sentCount: UInt64 { counters.sent }

    /// Stops accepting messages, sends what is queued (for at most `drainTimeout` seconds,
    /// including ZeroMQ's linger), closes the socket and joins the thread. Idempotent; any thread.
    public func close(drainTimeout: Double = 2) {
        let queue = self.queue
        worker.stop { queue.close(drainDeadline: .now() + max(0, drainTimeout)) }
    }
}

/// Counters shared between the outlet's thread and its callers.
final class OutletCounters: @unchecked Sendable {
    /// Guards `sentCount`, `droppedCount` and `warnedAboutClose`.
    private let lock = NSLock()
    private var sentCount: UInt64 = 0
    private var droppedCount: UInt64 = 0
    private var warnedAboutClose = false

    func add(sent: UInt64, dropped: UInt64) {
        lock.lock()
        sentCount &+= sent
        droppedCount &+= dropped
        lock.unlock()
    }

    var sent: UInt64 { lock.lock(); defer { lock.unlock() }; return sentCount }
    var dropped: UInt64 { lock.lock(); defer { lock.unlock() }; return droppedCount }

    func noteRefusedAfterClose(logger: Logger) {
        lock.lock()
        let warn = !warnedAboutClose
        warnedAboutClose = true
        lock.unlock()
        if warn { logger.warning("message sent to a closed outlet was dropped") }
    }
}
