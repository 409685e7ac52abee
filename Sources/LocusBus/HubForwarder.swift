import CZeroMQ
import Foundation
import LocusCore
import Logging

/// The hub's sockets and forwarding loop. Lives entirely on the hub thread: created, run and
/// closed there (ZeroMQ sockets must not change threads).
final class HubForwarder {
    private let configuration: HubConfiguration
    /// Some endpoint speaks CURVE, so an outside message may come with a key name (`via`).
    private let hasCurve: Bool
    private let ingest: ZMQSocket
    private let publish: ZMQSocket
    private let validator: MessageValidator
    private var reporter: DropReporter
    private let counters: HubCounters
    private let tokens: SyncTokenBook
    private let stop: StopFlag
    private let logger: Logger
    /// Socket files this hub created, removed again by `close()`.
    private var ipcFiles: [String] = []
    /// Endpoints as bound, wildcards resolved.
    private(set) var boundEndpoints: [String] = []
    /// Outside subscribers' accepted subscriptions, per connection.
    private var subscriptions: SubscriptionBook
    /// Accept and disconnect events of the publish socket's connections (ZeroMQ's socket
    /// monitor), so a closed connection's subscriptions stop counting against the limits.
    private let publishEvents: ZMQSocket
    private let publishEventsEndpoint = "inproc://locus-hub-publish-events-\(UUID().uuidString)"
    private var warnedSubscriptionLimit = false
    /// Per outside publisher connection (by its file descriptor), when `ingestRatePerClient` is set.
    private lazy var ingestLimiter = ClientRateLimiter(perSecond: ingestRatePerClient)
    /// `configuration.limits`' values read per message, kept here as plain stored values.
    private let ingestRatePerClient: Double
    private let maxMessageBytes: Int
    /// Where accepted messages are written before they are forwarded (nil: no journal).
    private let journal: (any MessageJournal)?
    /// When a failed journal write was last logged (at most one line a minute).
    private var lastJournalWarning: ContinuousClock.Instant?

    /// Messages forwarded between two checks of the stop flag and the subscription side; large
    /// enough to amortise those checks, small enough to keep sync tokens and stop prompt.
    static let burst = 1024

    init(configuration: HubConfiguration, registry: PayloadRegistry, context: ZMQContext, logger: Logger,
         counters: HubCounters, tokens: SyncTokenBook, stop: StopFlag, journal: (any MessageJournal)? = nil) throws {
        self.journal = journal
        self.configuration = configuration
        ingestRatePerClient = configuration.limits.ingestRatePerClient
        maxMessageBytes = configuration.limits.maxMessageBytes
        hasCurve = !configuration.curve.isEmpty
        self.logger = logger
        self.counters = counters
        self.tokens = tokens
        self.stop = stop
        validator = MessageValidator(registry: registry, maxMessageBytes: configuration.limits.maxMessageBytes,
                                     decodePayloads: configuration.limits.validatePayloads)
        reporter = DropReporter(logger: logger)
        ingest = try ZMQSocket(context: context, type: .xsub)
        publish = try ZMQSocket(context: context, type: .xpub)
        publishEvents = try ZMQSocket(context: context, type: .pair)
        subscriptions = SubscriptionBook(limits: configuration.limits.subscriptions)
    }

    /// Sets options and binds every endpoint. On error the caller must still call `close()`.
    func bind() throws {
        try ingest.setOption(.linger(milliseconds: 0))
        try ingest.setOption(.receiveHighWaterMark(configuration.ingestHighWaterMark))
        try ingest.setOption(.maxMessageSize(configuration.transportMessageLimit))
        try publish.setOption(.linger(milliseconds: 0))
        try publish.setOption(.sendHighWaterMark(configuration.limits.highWaterMark))
        // What comes in on the publish socket is subscriptions only: a small queue, so a
        // flooding subscriber waits in its own TCP buffer (ZeroMQ stops reading it) rather than
        // in the hub, and no subscription message longer than any topic could be (a 100 MB one
        // would otherwise be read whole; ZeroMQ closes such a connection).
        try publish.setOption(.receiveHighWaterMark(Self.subscriptionQueue))
        try publish.setOption(.maxMessageSize(Self.maxSubscriptionBytes))
        // And a small kernel buffer for them: what a cut-off connection had already sent is
        // still read (and kept by ZeroMQ until the connection closes), up to this much.
        try publish.setOption(.receiveBufferBytes(Self.subscriptionBufferBytes))
        // Verbose: every subscription reaches us, including repeats, so no sync token is missed.
        try publish.setOption(.xpubVerbose(true))
        // Manual: a subscription takes effect only once accepted (see `drainSubscriptions`).
        try publish.setOption(.xpubManual(true))
        guard zmq_socket_monitor(try publish.liveHandle("monitor"), publishEventsEndpoint, ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED) == 0 else {
            throw ZMQError.last("monitor the publish socket")
        }
        try publishEvents.setOption(.linger(milliseconds: 0))
        try publishEvents.connect(publishEventsEndpoint)
        for endpoint in ZMQSocket.bindOrder(configuration.allIngestEndpoints, curve: configuration.curve) { try bind(ingest, endpoint) }
        for endpoint in ZMQSocket.bindOrder(configuration.allPublishEndpoints, curve: configuration.curve) { try bind(publish, endpoint) }
        // Subscribe to everything ourselves (XSUB sends this to every publisher, present and
        // future): the hub must see every message to validate and count it, so downstream
        // subscriptions are never passed upstream.
        try ingest.send([[0x01]])
    }

    private func bind(_ socket: ZMQSocket, _ endpoint: String) throws {
        try socket.bind(endpoint, curve: configuration.curve[endpoint])
        if let path = try? Endpoint.validate(endpoint).ipcFilePath { ipcFiles.append(path) }
        boundEndpoints.append((try? socket.lastEndpoint) ?? endpoint)
        logger.debug("hub bound", metadata: ["endpoint": "\(endpoint)"])
    }

    /// Forwards until the stop flag is set or the context is terminated. Polls at most 100 ms
    /// at a time; while messages keep coming it drains them in bursts without polling.
    func run() {
        let batch = MessageBatch(capacity: Self.batch)
        var spare = ZMQMessage()
        // A local, not a property: class properties cost an exclusivity check per access.
        var forwarded: UInt64 = 0
        do {
            var poller = try ZMQPoller([ingest, publish, publishEvents])
            let ingestHandle = try ingest.liveHandle("receive")
            let publishHandle = try publish.liveHandle("send")
            var mustPoll = true
            while !stop.isSet {
                if mustPoll {
                    let ready = try poller.poll(timeoutMilliseconds: 100)
                    if ready.isEmpty { reporter.tick(); journal?.maintain(); continue }
                }
                var n = 0
                while n < Self.burst {
                    let got = try forwardBatch(batch, ingestHandle, publishHandle, &forwarded)
                    n += got
                    if got < Self.batch { break }
                }
                // A full burst means more is probably waiting: skip the poll next turn.
                mustPoll = n < Self.burst
                let subscriptionsLeft = try drainSubscriptions(&spare)
                if subscriptionsLeft { mustPoll = false }
                try drainPublishEvents()
                counters.setSubscriptions(subscriptions.total)
                counters.setForwarded(forwarded)
                reporter.tick()
                journal?.maintain()
            }
        } catch let error as ZMQError where error.isContextTerminated {
            logger.info("hub stopping: the ZeroMQ context was shut down")
        } catch {
            logger.error("hub forwarding failed", metadata: ["error": "\(error)"])
        }
        counters.setForwarded(forwarded)
    }

    /// Subscription messages queued per connection before ZeroMQ stops reading it. Small on
    /// purpose: ZeroMQ's XPUB moves everything queued into its own unbounded list each time the
    /// hub thread looks at the socket (sending included), so this is what one look can take in;
    /// at 1,000 a fast client outran the hub and the list grew by hundreds of megabytes.
    static let subscriptionQueue = 16
    /// Longest subscription message accepted: the command byte, a topic of `Topic.maxLength`
    /// and a dot fit many times over (sync tokens are about 45 bytes).
    static let maxSubscriptionBytes = 1024
    /// `SO_RCVBUF` of each outside connection of the publish socket (only subscriptions come in).
    static let subscriptionBufferBytes = 65_536

    /// Messages received, checked and sent as one batch (at most 64: one bit each in a UInt64).
    static let batch = 64

    /// Receives up to a batch of messages without blocking, then validates them, then forwards
    /// the valid ones (zero-copy). Returns how many messages were received.
    @inline(__always)
    private func forwardBatch(_ batch: MessageBatch, _ ingest: UnsafeMutableRawPointer, _ publish: UnsafeMutableRawPointer,
                              _ forwarded: inout UInt64) throws -> Int {
        var received = 0
        // Bounded by messages received, not slots filled: refused multi-frame messages take no
        // slot, and a flood of them must not keep the loop from checking its stop flag.
        receiving: while received < batch.capacity {
            switch try batch.receive(from: ingest) {
            case .nothing: break receiving
            case .message: received += 1
            case .wrongFrameCount(let frames):
                received += 1
                drop(MessageRejection(reason: .wrongFrameCount, detail: "message of \(frames) frame(s); expected 2 (topic, body)"))
            }
        }
        var valid: UInt64 = 0 // bit k: message k may be forwarded
        for k in 0..<batch.count {
            // Stamping `via` comes last: it rewrites the body only of a message nothing else refused.
            if let rejection = batch.withMessage(k, { validator.check(topic: $0, body: $1) }) ?? outsideRejection(batch, k)
                ?? (hasCurve ? stampVia(batch, k) : nil) {
                drop(rejection)
                batch.discard(k)
            } else {
                valid |= 1 << UInt64(k)
            }
        }
        if let journal, valid != 0 { record(batch, valid, in: journal) }
        for k in 0..<batch.count where valid & (1 << UInt64(k)) != 0 {
            try batch.send(k, to: publish)
            forwarded &+= 1
        }
        batch.reset()
        return received
    }

    /// Appends the batch's valid messages the journal takes and commits them, before any is sent:
    /// whatever a subscriber sees is then in the journal. A failed write is counted by the
    /// journal; the messages are forwarded anyway.
    private func record(_ batch: MessageBatch, _ valid: UInt64, in journal: any MessageJournal) {
        var any = false
        for k in 0..<batch.count where valid & (1 << UInt64(k)) != 0 {
            batch.withMessage(k) { topic, body in
                if journal.takes(topic: topic) {
                    journal.append(topic: topic, body: body)
                    any = true
                }
            }
        }
        guard any, !journal.commit() else { return }
        let now = ContinuousClock.now
        if let last = lastJournalWarning, now - last < .seconds(60) { return }
        lastJournalWarning = now
        logger.error("could not write to the journal; messages are forwarded but not journaled (counted as journal.not_written)")
    }

    /// Adds `via` (the CURVE key name) to message `k`'s envelope if it came over CURVE
    /// (docs/protocol.md 4.1). The policy has refused outside messages that carry one already.
    /// Returns the refusal if the stamp would take the body over `maxMessageBytes`: subscribers
    /// may size their buffers (or ZMQ_MAXMSGSIZE) by the documented limit.
    private func stampVia(_ batch: MessageBatch, _ k: Int) -> MessageRejection? {
        guard batch.sourceFD(k) >= 0, let user = batch.userID(k),
              let stamped = batch.withMessage(k, { _, body in EnvelopeVia.adding(user, to: body) }) else { return nil }
        guard stamped.count <= maxMessageBytes else {
            return MessageRejection(reason: .tooLarge, detail: "body of \(stamped.count) bytes with its via stamp exceeds the limit of \(maxMessageBytes)")
        }
        batch.replaceBody(k, with: stamped)
        return nil
    }

    /// For a message from an ipc or tcp connection, the refusal if it uses a topic or producer
    /// reserved for in-process plugins (`OutsidePublisherPolicy`); nil otherwise.
    /// Every outside message's payload is then checked against its type's schema
    /// (`MessageValidator.checkOutside`): a subscriber may trust the bounds the schema states
    /// (an `obs.nmea` sentence is one line of printable ASCII) whoever published it.
    @inline(__always)
    private func outsideRejection(_ batch: MessageBatch, _ k: Int) -> MessageRejection? {
        let fd = batch.sourceFD(k)
        guard fd >= 0 else { return nil }
        if ingestRatePerClient > 0, !ingestLimiter.allow(withUnsafeBytes(of: fd) { Array($0) }) {
            return MessageRejection(reason: .rateLimit, detail: "an outside publisher sent more than \(ingestRatePerClient) messages per second (hub.ingest_rate_per_client)")
        }
        if let policy = configuration.outsidePublishers, let refusal = batch.withMessage(k, { topic, body in
            policy.check(topic: topic, body: body) { [configuration] in
                OutsideConnection(fd: fd, user: batch.userID(k), ingestEndpoints: configuration.ingestEndpoints)
            }
        }) {
            return refusal
        }
        return batch.withMessage(k) { topic, body in validator.checkOutside(topic: topic, body: body) }
    }

    private func drop(_ rejection: MessageRejection) {
        counters.addDrop(rejection.reason)
        reporter.record(rejection)
    }

    /// Reads subscription messages from the XPUB and decides on each (manual mode): records
    /// sync tokens, accepts what is within `SubscriptionLimits` (passing it to ZeroMQ, which
    /// applies it to the connection that sent it), refuses and counts the rest.
    /// (Subscriptions are deliberately not forwarded upstream: the hub takes everything.)
    /// Reads at most `burst` of them, so a flood of subscriptions does not keep the loop from
    /// forwarding and from its stop flag; returns true if it stopped there with more to read.
    private func drainSubscriptions(_ message: inout ZMQMessage) throws -> Bool {
        var read = 0
        while read < Self.burst, try message.receive(from: publish, dontWait: true) {
            read += 1
            // ZeroMQ reports the connection's file descriptor over ipc/tcp; -1 for inproc (the
            // runtime's own subscribers) and for unsubscriptions of a connection that closed.
            let fd = zmq_msg_get(message.pointer, ZMQ_SRCFD)
            let (kind, prefix): (UInt8?, [UInt8]) = message.withUnsafeBytes { b in
                b.isEmpty ? (nil, []) : (b[0], Array(b[1...]))
            }
            switch kind {
            case 1?:
                if prefix.withUnsafeBytes({ SyncToken.isToken($0) }) { tokens.record(String(decoding: prefix, as: UTF8.self)) }
                if fd < 0 {
                    try publish.subscribe(prefix)
                    continue
                }
                if subscriptions.state(fd: fd) != .open { try drainPublishEvents() }
                switch subscriptions.state(fd: fd) {
                case .closed:
                    // Sent before its connection closed: ZeroMQ has no connection to apply it to.
                    continue
                case .cutOff:
                    counters.addDrop(.subscriptionLimit)
                    continue
                case .open, .unknown:
                    break
                }
                switch subscriptions.subscribe(prefix, fd: fd) {
                case .accept: try publish.subscribe(prefix)
                case .alreadyHeld: break
                case .refuseClient, .refuseTotal:
                    counters.addDrop(.subscriptionLimit)
                    warnSubscriptionLimitOnce(fd: fd)
                case .cutOff:
                    counters.addDrop(.subscriptionLimit)
                    cutOffConnection(fd: fd, message: message)
                }
            case 0?:
                // A closed connection's subscriptions are gone from ZeroMQ already (its fd
                // comes with the disconnect event); an inproc one is passed on.
                // (For a closed connection ZeroMQ has no connection to apply it to: a no-op.)
                if fd < 0 {
                    try publish.unsubscribe(prefix)
                } else if subscriptions.unsubscribe(prefix, fd: fd) {
                    try publish.unsubscribe(prefix)
                }
            default:
                break
            }
        }
        return read == Self.burst
    }

    private func warnSubscriptionLimitOnce(fd: Int32) {
        guard !warnedSubscriptionLimit else { return }
        warnedSubscriptionLimit = true
        logger.warning("a subscriber passed the subscription limit; further subscriptions are refused (counted as subscription_limit)", metadata: [
            "per_client": "\(configuration.limits.subscriptions.perClient)", "total": "\(configuration.limits.subscriptions.total)",
            "client_subscriptions": "\(subscriptions.count(fd: fd))", "all_subscriptions": "\(subscriptions.total)",
        ])
    }

    /// Shuts down connection `fd`, which has sent more subscriptions past its limits than the
    /// limit itself: ZeroMQ keeps every one it receives until the connection closes.
    private func cutOffConnection(fd: Int32, message: borrowing ZMQMessage) {
        let peer = zmq_msg_gets(message.pointer, "Peer-Address").map { String(cString: $0) }
        let outcome = ConnectionCutOff.cutOff(fd: fd, expectedPeer: peer)
        // Either way its further subscriptions are refused without trying again per message.
        subscriptions.cutOff(fd: fd)
        guard outcome == .shutDown else {
            logger.warning("could not disconnect a subscriber past the subscription limit; its subscriptions are refused", metadata: [
                "outcome": "\(outcome)", "peer": "\(peer ?? "?")"])
            return
        }
        counters.addSubscriberCutOff()
        // Once, then at debug: a client that reconnects by itself is cut off on every reconnect.
        let level: Logger.Level = warnedCutOff ? .debug : .warning
        warnedCutOff = true
        logger.log(level: level, "disconnected a subscriber that kept subscribing past the subscription limit (counted as hub.subscribers_cut_off)", metadata: [
            "peer": "\(peer ?? "?")", "per_client": "\(configuration.limits.subscriptions.perClient)",
            "client_subscriptions": "\(subscriptions.count(fd: fd))",
        ])
    }
    private var warnedCutOff = false

    /// Disconnect events from the publish socket's monitor: forget that connection's subscriptions.
    private func drainPublishEvents() throws {
        while let frames = try publishEvents.receiveMultipart(dontWait: true) {
            // Frame 1: event (UInt16) then value (UInt32, the fd), little-endian as libzmq writes it.
            guard let first = frames.first, first.count >= 6 else { continue }
            let event = UInt16(first[0]) | UInt16(first[1]) << 8
            let value = UInt32(first[2]) | UInt32(first[3]) << 8 | UInt32(first[4]) << 16 | UInt32(first[5]) << 24
            let fd = Int32(bitPattern: value)
            if Int32(event) == ZMQ_EVENT_ACCEPTED {
                subscriptions.accepted(fd: fd)
            } else if Int32(event) == ZMQ_EVENT_DISCONNECTED {
                subscriptions.disconnected(fd: fd)
            }
        }
    }

    /// Closes both sockets and removes the socket files this hub created.
    func close() {
        if let h = try? publish.liveHandle("monitor") { zmq_socket_monitor(h, nil, 0) }
        publishEvents.close()
        ingest.close()
        publish.close()
        for path in ipcFiles { IPCSocketFile.remove(path: path) }
        ipcFiles.removeAll()
    }
}
