import Dispatch
import Logging

/// The socket side of a `SocketOutlet`: everything here runs on the outlet's thread, which
/// creates, uses and closes the XPUB socket.
final class OutletSender: @unchecked Sendable {
    private let context: ZMQContext
    private let endpoint: String
    private let highWaterMark: Int
    private let subscriptionTimeout: Double
    private let queue: OutletQueue
    private let ready: ReadySignal
    private let counters: OutletCounters
    private let logger: Logger
    private var warnedAboutDrops = false

    init(context: ZMQContext, endpoint: String, highWaterMark: Int, subscriptionTimeout: Double,
         queue: OutletQueue, ready: ReadySignal, counters: OutletCounters, logger: Logger) {
        self.context = context
        self.endpoint = endpoint
        self.highWaterMark = highWaterMark
        self.subscriptionTimeout = subscriptionTimeout
        self.queue = queue
        self.ready = ready
        self.counters = counters
        self.logger = logger
    }

    func run(startup: StartupResult) {
        let socket: ZMQSocket
        do {
            socket = try ZMQSocket(context: context, type: .xpub)
            try socket.setOption(.sendHighWaterMark(highWaterMark))
            // With a limit, report EAGAIN instead of dropping silently, so drops are counted.
            try socket.setOption(.xpubNoDrop(highWaterMark > 0))
            try socket.setOption(.linger(milliseconds: 0))
            // Bounds the wait for room for a body frame, so the loop keeps seeing `close`.
            try socket.setOption(.sendTimeout(milliseconds: 100))
            try socket.connect(endpoint)
        } catch {
            startup.report(error)
            return
        }
        startup.report(nil)
        defer {
            // If this thread ends early (context shut down, socket error), later sends must be
            // refused rather than block on a queue nobody empties. The socket closes last, so
            // whoever waits for it (ZMQContext.shutdown) sees the final counts.
            queue.close(drainDeadline: .now())
            var unsent: [OutletQueue.Item] = []
            _ = queue.take(into: &unsent, timeout: 0)
            counters.add(sent: 0, dropped: UInt64(unsent.count))
            socket.close()
        }
        do {
            try waitForHubSubscription(socket)
            try sendUntilClosed(socket)
        } catch let error as ZMQError where error.isContextTerminated {
            logger.debug("outlet stopping: the ZeroMQ context was shut down")
        } catch {
            logger.error("outlet failed", metadata: ["endpoint": "\(endpoint)", "error": "\(error)"])
        }
    }

    /// Waits for the subscribe-all frame (`\x01`) the hub's XSUB sends on every new connection.
    private func waitForHubSubscription(_ socket: ZMQSocket) throws {
        let deadline = DispatchTime.now() + subscriptionTimeout
        while DispatchTime.now() < deadline && !queue.isClosed {
            if let frames = try socket.receiveMultipart(timeoutMilliseconds: 100),
               let first = frames.first, first.first == 1 {
                ready.set()
                return
            }
        }
        if !queue.isClosed {
            logger.warning("no hub subscribed within \(subscriptionTimeout) s; sending anyway, messages are lost until one does",
                           metadata: ["endpoint": "\(endpoint)"])
        }
        ready.set()
    }

    private func sendUntilClosed(_ socket: ZMQSocket) throws {
        var batch: [OutletQueue.Item] = []
        batch.reserveCapacity(4096)
        while true {
            let state = queue.take(into: &batch, timeout: 0.1)
            var sent: UInt64 = 0
            var dropped: UInt64 = 0
            let closing = queue.isClosed
            let deadline = closing ? queue.deadline : .distantFuture
            for (i, item) in batch.enumerated() {
                if closing && i % 256 == 0 && DispatchTime.now() >= deadline {
                    dropped += UInt64(batch.count - i)
                    logger.warning("outlet closed before everything was sent", metadata: ["unsent": "\(batch.count - i)"])
                    break
                }
                if try socket.send(topic: item.topic, body: item.body, dontWait: true) {
                    sent += 1
                } else {
                    dropped += 1
                    warnDropOnce()
                }
            }
            let handled = batch.count
            batch.removeAll(keepingCapacity: true)
            counters.add(sent: sent, dropped: dropped)
            // Subscription messages (a reconnecting hub) are not needed after the first; discard them.
            while try socket.receiveMultipart(dontWait: true) != nil {}
            if state == .closedAndEmpty || (closing && DispatchTime.now() >= deadline) { break }
            if handled > 0 && handled < 1024 && !closing { BurstPause.afterPartialBurst() }
        }
        // Give queued frames to the transport until the drain deadline (matters for ipc/tcp).
        let end = queue.deadline.uptimeNanoseconds, now = DispatchTime.now().uptimeNanoseconds
        let remaining = end > now ? min((end - now) / 1_000_000 + 1, 3_600_000) : 0
        try socket.setOption(.linger(milliseconds: Int(remaining)))
    }

    private func warnDropOnce() {
        guard !warnedAboutDrops else { return }
        warnedAboutDrops = true
        logger.warning("outlet at its high-water mark; dropping messages (counted in droppedCount)",
                       metadata: ["endpoint": "\(endpoint)", "highWaterMark": "\(highWaterMark)"])
    }
}
