import Foundation
import LocusCore
import Logging

/// A publish endpoint with a policy (`topics:` and/or `precision:` in the config): its own XPUB
/// socket, fed from the hub's in-process publish socket, passing on the allowed topics only —
/// so nothing else ever reaches this endpoint, whatever its clients subscribe to — with every
/// payload reduced (`PrecisionReduction`) before it is sent. It takes every topic from the hub
/// and filters itself, so a gap in a producer's sequence numbers is a real loss.
///
/// Runs on its own thread (its sockets never leave it). Messages the relay could not keep up
/// with (gaps in a producer's sequence numbers on its SUB) and bodies that could not be reduced
/// are counted, never silently lost.
public final class RestrictedPublisher: @unchecked Sendable {
    public let endpoint: String
    public let topics: [String]
    public let precision: PrecisionReduction?
    private let curve: CurveServer?
    private let context: ZMQContext
    private let highWaterMark: Int
    private let logger: Logger
    private let worker = SocketWorker(thread: "locus-restrict", for: "the restricted publisher")
    private var stopFlag: StopFlag { worker.stopFlag }
    /// Guards `counts`.
    private let lock = NSLock()
    private var counts = RestrictedPublisherStatistics()

    /// `topics` empty means every topic; `precision` nil means positions as they are.
    public init(endpoint: String, topics: [String], precision: PrecisionReduction?, curve: CurveServer? = nil,
                context: ZMQContext, highWaterMark: Int, logger: Logger) {
        self.endpoint = endpoint
        self.topics = topics
        self.precision = precision
        self.curve = curve
        self.context = context
        self.highWaterMark = highWaterMark
        self.logger = logger
    }

    deinit { stop() }

    /// What was forwarded and lost so far.
    public var statistics: RestrictedPublisherStatistics { lock.withLock { counts } }

    /// Binds the endpoint (a `ZMQError` naming it if that fails) and starts relaying. The hub
    /// must be running (its in-process publish socket is where this connects).
    public func start() throws {
        try worker.start { [self] startup in
            let input: ZMQSocket, output: ZMQSocket
            do {
                input = try ZMQSocket(context: context, type: .sub)
                try input.setOption(.linger(milliseconds: 0))
                try input.setOption(.receiveHighWaterMark(highWaterMark))
                try input.connect(HubConfiguration.inprocPublish)
                try input.subscribe("")
                output = try ZMQSocket(context: context, type: .xpub)
                try output.setOption(.linger(milliseconds: 0))
                try output.setOption(.sendHighWaterMark(highWaterMark))
                // Only subscriptions come in: small, as on the hub's own publish socket.
                try output.setOption(.receiveHighWaterMark(16))
                try output.setOption(.maxMessageSize(1024))
                try output.bind(endpoint, curve: curve)
            } catch {
                startup.report(error)
                return
            }
            startup.report(nil)
            relay(input, output)
            input.close()
            output.close()
            if let path = try? Endpoint.validate(endpoint).ipcFilePath { IPCSocketFile.remove(path: path) }
        }
    }

    /// Stops within ~100 ms and closes the endpoint. Idempotent.
    public func stop() { worker.stop() }

    private func relay(_ input: ZMQSocket, _ output: ZMQSocket) {
        var lastSeq: [String: UInt64] = [:]
        var warnedUnreducible = false
        let allowed = topics.map { Array($0.utf8) }
        do {
            var poller = try ZMQPoller([input, output])
            while !stopFlag.isSet {
                let ready = try poller.poll(timeoutMilliseconds: 100)
                if ready.isReadable(1) {
                    // Subscriptions: XPUB applies them itself; reading keeps its queue moving.
                    while try output.receiveMultipart(dontWait: true) != nil {}
                }
                guard ready.isReadable(0) else { continue }
                // Counted locally and added once per burst: one lock per burst, not per message.
                var burst = RestrictedPublisherStatistics()
                defer { lock.withLock { counts.forwarded += burst.forwarded; counts.missed += burst.missed; counts.unreducible += burst.unreducible } }
                var n = 0
                while n < 1024, let frames = try input.receiveMultipart(dontWait: true) {
                    n += 1
                    guard frames.count == 2 else { continue }
                    var missed: UInt64 = 0
                    if let o = frames[1].withUnsafeBytes({ EnvelopeOrigin.read($0) }) {
                        if let last = lastSeq[o.producer], o.seq > last + 1 { missed = o.seq - last - 1 }
                        lastSeq[o.producer] = o.seq
                    }
                    burst.missed += missed
                    if !allowed.isEmpty, !frames[0].withUnsafeBytes({ t in allowed.contains { Topic.hasPrefix(t, $0) } }) { continue }
                    var body = frames[1]
                    if let precision {
                        guard let reduced = precision.reduce(envelope: body) else {
                            burst.unreducible += 1
                            if !warnedUnreducible {
                                warnedUnreducible = true
                                logger.warning("a message whose payload could not be reduced was not sent (counted as unreducible)",
                                               metadata: ["endpoint": "\(endpoint)", "topic": "\(String(decoding: frames[0], as: UTF8.self))"])
                            }
                            continue
                        }
                        body = reduced
                    }
                    _ = try output.send([frames[0], body], dontWait: true)
                    burst.forwarded += 1
                }
            }
        } catch let error as ZMQError where error.isContextTerminated {
            return
        } catch {
            logger.error("restricted publish endpoint failed", metadata: ["endpoint": "\(endpoint)", "error": "\(error)"])
        }
    }
}

/// What a `RestrictedPublisher` relayed and lost.
public struct RestrictedPublisherStatistics: Sendable, Equatable {
    /// Messages sent on the endpoint.
    public var forwarded: UInt64 = 0
    /// Messages the relay missed (sequence gaps on its input: it fell more than the high-water
    /// mark behind), of any topic: it cannot tell which topic a missed message had.
    public var missed: UInt64 = 0
    /// Messages not sent because their payload could not be reduced.
    public var unreducible: UInt64 = 0
}
