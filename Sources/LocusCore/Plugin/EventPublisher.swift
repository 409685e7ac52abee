import Foundation

/// Where encoded messages go. The runtime implements it over a ZeroMQ socket; tests implement
/// it in memory. Plugins never see it: they publish through `EventPublisher`.
///
/// Implementers must accept calls from any thread or task and keep their order.
public protocol MessageOutlet: Sendable {
    func send(topic: String, body: [UInt8])
}

/// Publishes typed events for one producer: stamps the envelope with the producer id, the
/// next sequence number and the next number on its topic (`topic_seq`, docs/protocol.md 4.2),
/// encodes it with the fast codec, and hands it to the outlet.
/// Safe to call from any task; calls are serialised so sequence numbers follow send order.
public final class EventPublisher: @unchecked Sendable {
    public let producer: String
    private let outlet: any MessageOutlet
    private let observer: (any PublishObserver)?
    /// Guards `seq` and `topicSequences`.
    private let lock = NSLock()
    private var seq: UInt64 = 0
    private var topicSequences = TopicSequences()

    /// `observer`, if given, is told of each message as it is handed to `outlet` (the runtime
    /// uses it to know how far ahead of its consumers each producer is).
    public init(producer: String, outlet: any MessageOutlet, observer: (any PublishObserver)? = nil) {
        self.producer = producer
        self.outlet = outlet
        self.observer = observer
    }

    /// Publishes `payload` on `topic` (a complete topic such as `obs.fix.gps0`) at event time `time`.
    public func publish<P: Payload>(_ payload: P, topic: String, time: EventTime) {
        lock.lock()
        defer { lock.unlock() }
        seq += 1
        let topicSeq = topicSequences.next(topic)
        var w = JSONWriter()
        EnvelopeCodec.encode(payload, producer: producer, seq: seq, topicSeq: topicSeq, time: time, into: &w)
        observer?.published(producer: producer, topic: topic, seq: seq)
        outlet.send(topic: topic, body: w.bytes)
    }

    /// Publishes a payload kept as JSON (pass-through of recorded or foreign events).
    public func publish(raw: RawPayload, topic: String, time: EventTime) {
        lock.lock()
        defer { lock.unlock() }
        seq += 1
        let topicSeq = topicSequences.next(topic)
        let body = EnvelopeCodec.encode(Envelope(type: raw.eventType, version: raw.schemaVersion, producer: producer,
                                                 seq: seq, topicSeq: topicSeq, time: time, payload: .raw(raw)))
        observer?.published(producer: producer, topic: topic, seq: seq)
        outlet.send(topic: topic, body: body)
    }

    /// Publishes whatever an envelope carries, re-stamped with this producer and sequence.
    public func republish(_ envelope: Envelope, topic: String) {
        switch envelope.payload {
        case .typed(let p): publish(p, topic: topic, time: envelope.time)
        case .raw(let r): publish(raw: r, topic: topic, time: envelope.time)
        }
    }

    /// Encodes `events` as this producer's next messages without sending them, advancing the
    /// counters as publishing would: the runtime commits the bytes with the state that caused
    /// them, then `send`s them (a `StatefulService`'s events, `ServiceStateKeeper`).
    public func encode(_ events: [ServiceOutput.Event]) -> [EncodedEvent] {
        lock.lock()
        defer { lock.unlock() }
        return events.map { e in
            seq += 1
            let topicSeq = topicSequences.next(e.topic)
            var w = JSONWriter()
            EnvelopeCodec.encode(e.payload, producer: producer, seq: seq, topicSeq: topicSeq, time: e.time, into: &w)
            return EncodedEvent(topic: e.topic, time: e.time, seq: seq, topicSeq: topicSeq, body: w.bytes)
        }
    }

    /// Sends messages made by `encode`, in order.
    public func send(_ encoded: [EncodedEvent]) {
        for e in encoded {
            observer?.published(producer: producer, topic: e.topic, seq: e.seq)
            outlet.send(topic: e.topic, body: e.body)
        }
    }

    /// Continues numbering after a restart: the next message gets `seq + 1`, and each topic in
    /// `topicSequences` the number after its own.
    public func restoreSequences(seq: UInt64, topicSequences restored: [String: UInt64]) {
        lock.lock()
        defer { lock.unlock() }
        self.seq = seq
        topicSequences = TopicSequences()
        for (topic, last) in restored { topicSequences.set(topic, last: last) }
    }

    /// The sequence number of the last message published.
    public var lastSequence: UInt64 {
        lock.lock()
        defer { lock.unlock() }
        return seq
    }
}

/// An event encoded as an envelope by `EventPublisher.encode`, not yet sent.
public struct EncodedEvent: Sendable {
    public var topic: String
    public var time: EventTime
    public var seq: UInt64
    public var topicSeq: UInt64
    public var body: [UInt8]

    public init(topic: String, time: EventTime, seq: UInt64, topicSeq: UInt64, body: [UInt8]) {
        self.topic = topic
        self.time = time
        self.seq = seq
        self.topicSeq = topicSeq
        self.body = body
    }
}
