import Foundation
import LocusCore
import LocusNATS
import Logging

/// Sends events to a JetStream stream, each with a `Nats-Msg-Id` derived from the event itself
/// (`EventMessageId`), so the same event sent twice — by a server that took over a partition and
/// re-derived it, or after a reconnect — is stored once. Events wait in a bounded queue while
/// NATS is away; each is sent until the stream acknowledges it, in order.
public struct NATSSink: AcknowledgingSink, ReportsCounters {
    public let configuration: NATSSinkConfiguration
    public let statistics = SourceCounters<NATSSinkCounters>()
    let connection: NATSConnectionSettings
    /// The running instance's outbox, for `isSettled`.
    private let current = CurrentOutbox()

    final class CurrentOutbox: @unchecked Sendable {
        private let lock = NSLock()
        private var outbox: NATSOutbox?
        func set(_ o: NATSOutbox?) { lock.withLock { outbox = o } }
        var waiting: Int { lock.withLock { outbox }?.waiting ?? 0 }
    }

    /// Nothing taken waits for the stream's acknowledgement (a device state exchange waits for
    /// this before a partition's position is claimed: the events it caused are in the stream).
    public var isSettled: Bool { current.waiting == 0 }

    public var subscriptions: [String] { configuration.topics }
    public var reportedCounters: [String: UInt64] { statistics.counterValues }

    public func run(messages: AsyncStream<BusMessage>, context: PluginContext) async throws {
        let outbox = NATSOutbox(limit: configuration.queueLimit)
        current.set(outbox)
        let sender = NATSSender(configuration: configuration, connection: connection, outbox: outbox, counters: statistics, context: context)
        let done = ThreadCompletion()
        startThread(named: "locus-nats-out", owning: sender) { sender in
            sender.run()
            done.finish(nil)
        }
        var warnedFull = false
        for await message in messages {
            if configuration.exclude.contains(where: { message.topic.hasPrefix($0) }) { continue }
            guard message.body.count <= configuration.maxPayloadBytes else {
                statistics.update { $0.droppedTooLarge += 1 }
                continue
            }
            let item = NATSOutbox.Item(subject: configuration.subjectPrefix + "." + message.topic,
                                       messageId: EventMessageId.of(topic: message.topic, envelope: message.envelope), body: message.body)
            if outbox.push(item) {
                warnedFull = false
            } else {
                statistics.update { $0.droppedQueueFull += 1 }
                if !warnedFull {
                    context.logger.warning("NATS queue full: events are dropped until the stream takes them",
                                           metadata: ["queue_limit": "\(configuration.queueLimit)"])
                    warnedFull = true
                }
            }
        }
        outbox.end()
        try await done.wait()
    }
}

enum NATSSendError: Error, CustomStringConvertible {
    case notAcknowledged(Int)

    var description: String {
        switch self {
        case .notAcknowledged(let n): "the stream did not acknowledge \(n) events in time (no stream for the subject, or a leader being elected); sent again"
        }
    }
}

/// The `nats` sink's thread: owns the connection, (re)connects with backoff, makes sure the
/// stream exists and sends the outbox in order.
final class NATSSender {
    private let configuration: NATSSinkConfiguration
    private let settings: NATSConnectionSettings
    private let outbox: NATSOutbox
    private let counters: SourceCounters<NATSSinkCounters>
    private let context: PluginContext
    private var connection: NATSConnection?
    private var backoff: Double
    private var nextAttempt = Date()
    private let status: NATSStatusReport

    init(configuration: NATSSinkConfiguration, connection: NATSConnectionSettings, outbox: NATSOutbox,
         counters: SourceCounters<NATSSinkCounters>, context: PluginContext) {
        self.configuration = configuration
        settings = connection
        self.outbox = outbox
        self.counters = counters
        self.context = context
        backoff = configuration.server.reconnectMin
        status = NATSStatusReport(context: context, servers: connection.servers)
    }

    /// Events sent at once before their acknowledgements are collected (one round trip for
    /// them all: a burst of fence events, one per device crossing, goes out in milliseconds).
    static let window = 256

    func run() {
        while true {
            let items = outbox.peek(max: Self.window, timeout: 0.2)
            guard !items.isEmpty else {
                if outbox.hasEnded { break }
                continue
            }
            guard let connection = connected() else {
                if outbox.hasEnded { break }
                Thread.sleep(forTimeInterval: min(0.2, max(0, nextAttempt.timeIntervalSinceNow)))
                continue
            }
            do {
                let acks = try connection.publishPipelined(items.map {
                    NATSConnection.OutgoingMessage(subject: $0.subject, payload: $0.body, messageId: $0.messageId)
                })
                // In order: what follows the first unacknowledged one is sent again (its id makes a
                // copy the stream already has a duplicate).
                outbox.removeFirst(acks.count)
                let duplicates = acks.filter(\.duplicate).count
                counters.update { $0.duplicates += duplicates; $0.published += acks.count - duplicates }
                guard acks.count == items.count else { throw NATSSendError.notAcknowledged(items.count - acks.count) }
                status.working()
            } catch {
                counters.update { $0.publishRetries += 1 }
                status.failing("\(error)")
                // libnats reconnects by itself; a stream deleted under us is created again.
                if !connection.isConnected { Thread.sleep(forTimeInterval: 0.2) } else { try? ensureStream(connection) }
                if outbox.hasEnded && !connection.isConnected { break }
            }
        }
        let left = outbox.waiting
        if left > 0 { counters.update { $0.droppedAtShutdown += left } }
    }

    /// The connection, made now if it is time to try; nil while NATS cannot be reached.
    private func connected() -> NATSConnection? {
        if let connection { return connection }
        guard Date() >= nextAttempt else { return nil }
        var reached = false
        do {
            let c = try NATSConnection(settings)
            reached = true
            try ensureStream(c)
            connection = c
            backoff = configuration.server.reconnectMin
            counters.update { $0.connects += 1 }
            status.connected("connected to NATS", ["stream": "\(configuration.stream)"])
            return c
        } catch {
            counters.update { $0.connectFailures += 1 }
            nextAttempt = Date().addingTimeInterval(backoff)
            status.failing("\(error)", retryIn: backoff, connected: reached)
            backoff = min(backoff * 2, configuration.server.reconnectMax)
            return nil
        }
    }

    private func ensureStream(_ c: NATSConnection) throws {
        try c.ensureStream(JetStreamStreamSpec(name: configuration.stream, subjects: [configuration.subjectPrefix + ".>"],
                                               replicas: configuration.replicas, duplicateWindowSeconds: configuration.duplicateWindow))
    }
}
