import CZeroMQ
import Foundation
import LocusCore
import Logging

/// The hub's sockets and forwarding loop. Lives entirely on the hub thread: created, run and
/// closed there (ZeroMQ sockets must not change threads).
final class HubForwarder {
    private let configuration: HubConfiguration
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
    /// Disconnect events of the publish socket's connections (ZeroMQ's socket monitor), so a
    /// closed connection's subscriptions stop counting against the limits.
    private let publishEvents: ZMQSocket
    private let publishEventsEndpoint = "inproc://locus-hub-publish-events-\(UUID().uuidString)"
    private var warnedSubscriptionLimit = false

    /// Messages forwarded between two checks of the stop flag and the subscription side; large
    /// enough to amortise those checks, small enough to keep sync tokens and stop prompt.
    static let burst = 1024

    init(configuration: HubConfiguration, registry: PayloadRegistry, context: ZMQContext, logger: Logger,
         counters: HubCounters, tokens: SyncTokenBook, stop: StopFlag) throws {
        self.configuration = configuration
        self.logger = logger
        self.counters = counters
        self.tokens = tokens
        self.stop = stop
        validator = MessageValidator(registry: registry, maxMessageBytes: configuration.maxMessageBytes,
                                     decodePayloads: configuration.validatePayloads)
        reporter = DropReporter(logger: logger)
        ingest = try ZMQSocket(context: context, type: .xsub)
        publish = try ZMQSocket(context: context, type: .xpub)
        publishEvents = try ZMQSocket(context: context, type: .pair)
        subscriptions = SubscriptionBook(limits: configuration.subscriptionLimits)
    }

    /// Sets options and binds every endpoint. On error the caller must still call `close()`.
    func bind() throws {
        try ingest.setOption(.linger(milliseconds: 0))
        try ingest.setOption(.receiveHighWaterMark(configuration.highWaterMark))
        try ingest.setOption(.maxMessageSize(configuration.transportMessageLimit))
        try publish.setOption(.linger(milliseconds: 0))
        try publish.setOption(.sendHighWaterMark(configuration.highWaterMark))
        // Verbose: every subscription reaches us, including repeats, so no sync token is missed.
        try publish.setOption(.xpubVerbose(true))
        // Manual: a subscription takes effect only once accepted (see `drainSubscriptions`).
        try publish.setOption(.xpubManual(true))
        guard zmq_socket_monitor(try publish.liveHandle("monitor"), publishEventsEndpoint, ZMQ_EVENT_DISCONNECTED) == 0 else {
            throw ZMQError.last("monitor the publish socket")
        }
        try publishEvents.setOption(.linger(milliseconds: 0))
        try publishEvents.connect(publishEventsEndpoint)
        for endpoint in configuration.allIngestEndpoints { try bind(ingest, endpoint) }
        for endpoint in configuration.allPublishEndpoints { try bind(publish, endpoint) }
        // Subscribe to everything ourselves (XSUB sends this to every publisher, present and
        // future): the hub must see every message to validate and count it, so downstream
        // subscriptions are never passed upstream.
        try ingest.send([[0x01]])
    }

    private func bind(_ socket: ZMQSocket, _ endpoint: String) throws {
        try socket.bind(endpoint)
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
                    if ready.isEmpty { reporter.tick(); continue }
                }
                var n = 0
                while n < Self.burst {
                    let got = try forwardBatch(batch, ingestHandle, publishHandle, &forwarded)
                    n += got
                    if got < Self.batch { break }
                }
                // A full burst means more is probably waiting: skip the poll next turn.
                mustPoll = n < Self.burst
                try drainSubscriptions(&spare)
                try drainPublishEvents()
                counters.setSubscriptions(subscriptions.total)
                counters.setForwarded(forwarded)
                reporter.tick()
            }
        } catch let error as ZMQError where error.isContextTerminated {
            logger.info("hub stopping: the ZeroMQ context was shut down")
        } catch {
            logger.error("hub forwarding failed", metadata: ["error": "\(error)"])
        }
        counters.setForwarded(forwarded)
    }

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
            if let rejection = batch.withMessage(k, { validator.check(topic: $0, body: $1) }) {
                drop(rejection)
                batch.discard(k)
            } else {
                valid |= 1 << UInt64(k)
            }
        }
        for k in 0..<batch.count where valid & (1 << UInt64(k)) != 0 {
            try batch.send(k, to: publish)
            forwarded &+= 1
        }
        batch.reset()
        return received
    }

    private func drop(_ rejection: MessageRejection) {
        counters.addDrop(rejection.reason)
        reporter.record(rejection)
    }

    /// Reads subscription messages from the XPUB and decides on each (manual mode): records
    /// sync tokens, accepts what is within `SubscriptionLimits` (passing it to ZeroMQ, which
    /// applies it to the connection that sent it), refuses and counts the rest.
    /// (Subscriptions are deliberately not forwarded upstream: the hub takes everything.)
    private func drainSubscriptions(_ message: inout ZMQMessage) throws {
        while try message.receive(from: publish, dontWait: true) {
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
                switch subscriptions.subscribe(prefix, fd: fd) {
                case .accept: try publish.subscribe(prefix)
                case .alreadyHeld: break
                case .refuseClient, .refuseTotal:
                    counters.addDrop(.subscriptionLimit)
                    warnSubscriptionLimitOnce(fd: fd)
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
    }

    private func warnSubscriptionLimitOnce(fd: Int32) {
        guard !warnedSubscriptionLimit else { return }
        warnedSubscriptionLimit = true
        logger.warning("a subscriber passed the subscription limit; further subscriptions are refused (counted as subscription_limit)", metadata: [
            "per_client": "\(configuration.subscriptionLimits.perClient)", "total": "\(configuration.subscriptionLimits.total)",
            "client_subscriptions": "\(subscriptions.count(fd: fd))", "all_subscriptions": "\(subscriptions.total)",
        ])
    }

    /// Disconnect events from the publish socket's monitor: forget that connection's subscriptions.
    private func drainPublishEvents() throws {
        while let frames = try publishEvents.receiveMultipart(dontWait: true) {
            // Frame 1: event (UInt16) then value (UInt32, the fd), little-endian as libzmq writes it.
            guard let first = frames.first, first.count >= 6 else { continue }
            let event = UInt16(first[0]) | UInt16(first[1]) << 8
            let value = UInt32(first[2]) | UInt32(first[3]) << 8 | UInt32(first[4]) << 16 | UInt32(first[5]) << 24
            if Int32(event) == ZMQ_EVENT_DISCONNECTED { subscriptions.disconnected(fd: Int32(bitPattern: value)) }
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
