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
            var poller = try ZMQPoller([ingest, publish])
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

    /// Reads subscription messages from the XPUB: records sync tokens, discards the rest
    /// (downstream subscriptions are deliberately not forwarded upstream).
    private func drainSubscriptions(_ message: inout ZMQMessage) throws {
        while try message.receive(from: publish, dontWait: true) {
            message.withUnsafeBytes { b in
                guard b.count > 1, b[0] == 1 else { return }
                let subscription = UnsafeRawBufferPointer(rebasing: b[1...])
                if SyncToken.isToken(subscription) {
                    tokens.record(String(decoding: subscription, as: UTF8.self))
                }
            }
        }
    }

    /// Closes both sockets and removes the socket files this hub created.
    func close() {
        ingest.close()
        publish.close()
        for path in ipcFiles { IPCSocketFile.remove(path: path) }
        ipcFiles.removeAll()
    }
}
