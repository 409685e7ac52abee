import Dispatch
import LocusCore
import Logging

/// The socket side of a `SocketSubscription`; runs entirely on the subscription's thread,
/// which creates, uses and closes the SUB socket.
final class SubscriptionReceiver: @unchecked Sendable {
    private let context: ZMQContext
    private let endpoint: String
    private let prefixes: [String]
    private let syncToken: String
    private let highWaterMark: Int
    private let registry: PayloadRegistry
    private let logger: Logger
    private let queue: FeedQueue
    private let control: SubscriptionControl
    private let counters: SubscriptionCounters
    private var warnedUndecodable = false
    private var warnedSlowConsumer = false

    /// Longest a draining stop keeps receiving, in case traffic never pauses.
    static let maxDrainNanoseconds: UInt64 = 10_000_000_000

    init(context: ZMQContext, endpoint: String, prefixes: [String], syncToken: String, highWaterMark: Int,
         registry: PayloadRegistry, logger: Logger, queue: FeedQueue,
         control: SubscriptionControl, counters: SubscriptionCounters) {
        self.context = context
        self.endpoint = endpoint
        self.prefixes = prefixes
        self.syncToken = syncToken
        self.highWaterMark = highWaterMark
        self.registry = registry
        self.logger = logger
        self.queue = queue
        self.control = control
        self.counters = counters
    }

    func run(startup: StartupResult) {
        let socket: ZMQSocket
        do {
            socket = try ZMQSocket(context: context, type: .sub)
            try socket.setOption(.receiveHighWaterMark(highWaterMark))
            try socket.setOption(.linger(milliseconds: 0))
            for p in prefixes { try socket.subscribe(p) }
            // Last: once the hub sees this, it has every prefix above (one pipe keeps order).
            try socket.subscribe(syncToken)
            try socket.connect(endpoint)
        } catch {
            queue.finish()
            startup.report(error)
            return
        }
        startup.report(nil)
        do {
            try receiveUntilStopped(socket)
        } catch let error as ZMQError where error.isContextTerminated {
            logger.debug("subscription stopping: the ZeroMQ context was shut down")
        } catch {
            logger.error("subscription failed", metadata: ["endpoint": "\(endpoint)", "error": "\(error)"])
        }
        socket.close()
        queue.finish()
    }

    private func receiveUntilStopped(_ socket: ZMQSocket) throws {
        var topic = ZMQMessage()
        var body = ZMQMessage()
        var drainStart: UInt64?
        while true {
            let mode = control.mode
            if mode == .stopNow { return }
            if mode == .drain && drainStart == nil { drainStart = DispatchTime.now().uptimeNanoseconds }
            let readable = try socket.waitReadable(timeoutMilliseconds: 100)
            if !readable {
                // Idle for a whole poll: a draining stop is complete.
                if drainStart != nil { return }
                continue
            }
            guard let received = try receiveBurst(socket, &topic, &body) else {
                logger.debug("subscription stopping: nobody reads its messages any more", metadata: ["endpoint": "\(endpoint)"])
                return
            }
            if received < Self.burst { BurstPause.afterPartialBurst() }
            if let start = drainStart, DispatchTime.now().uptimeNanoseconds - start > Self.maxDrainNanoseconds {
                logger.warning("subscription stopped while messages were still arriving", metadata: ["endpoint": "\(endpoint)"])
                return
            }
        }
    }

    /// Messages decoded and not yet pushed to the queue.
    private var pending: [BusMessage] = []
    /// Pushed as soon as this many are decoded, so the consumer can start on a long burst.
    static let pushEvery = 256

    /// Messages received at most before the thread looks at its stop request again.
    static let burst = 1024

    /// Receives what is queued (up to `burst` messages) and hands it to the queue in batches.
    /// Returns how many messages it received; nil once the queue's consumer is gone.
    private func receiveBurst(_ socket: ZMQSocket, _ topic: inout ZMQMessage, _ body: inout ZMQMessage) throws -> Int? {
        // Counted at once, not with the burst: a consumer that has received the message after
        // a bad one must see the bad one counted (they are rare, so the lock costs nothing).
        func undecodable() { counters.add(delivered: 0, undecodable: 1, dropped: 0) }
        var received = 0
        while received < Self.burst {
            guard try topic.receive(from: socket, dontWait: true) else { break }
            received += 1
            guard topic.hasMore else { undecodable(); continue }
            while !(try body.receive(from: socket, dontWait: false)) {}
            if body.hasMore {
                // More than two frames: skip the rest of this message.
                while body.hasMore { while !(try body.receive(from: socket, dontWait: false)) {} }
                undecodable()
                continue
            }
            let isToken = topic.withUnsafeBytes { $0.first == 0 }
            if isToken { continue }
            let name = topic.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
            let bytes = body.bytes
            let envelope: Envelope
            do {
                envelope = try EnvelopeCodec.decode(bytes, registry: registry)
            } catch {
                undecodable()
                warnUndecodableOnce(topic: name, error: error)
                continue
            }
            pending.append(BusMessage(topic: name, envelope: envelope, body: bytes))
            if pending.count >= Self.pushEvery, !pushPending() { return nil }
        }
        return pushPending() ? received : nil
    }

    /// Hands `pending` to the queue and counts what it took and refused. False once the
    /// queue's consumer is gone.
    private func pushPending() -> Bool {
        if pending.isEmpty { return true }
        let count = pending.count
        guard let refused = queue.push(&pending) else { return false }
        counters.add(delivered: UInt64(count - refused), undecodable: 0, dropped: UInt64(refused))
        if refused > 0 { warnSlowConsumerOnce() }
        return true
    }

    private func warnUndecodableOnce(topic: String, error: Error) {
        guard !warnedUndecodable else { return }
        warnedUndecodable = true
        // The error names the problem and byte offset, never field values (they may be coordinates).
        logger.warning("skipping undecodable messages (first shown, the rest counted)",
                       metadata: ["topic": "\(topic)", "error": "\(error)"])
    }

    private func warnSlowConsumerOnce() {
        guard !warnedSlowConsumer else { return }
        warnedSlowConsumer = true
        logger.warning("subscriber is not keeping up; dropping new messages (counted)", metadata: ["endpoint": "\(endpoint)"])
    }
}
