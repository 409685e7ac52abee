/// The body of every bus message: who published what, when, and the typed payload.
///
/// Wire form (one compact JSON object, keys in this order when Locus writes it):
/// `{"type":"obs.fix","version":1,"producer":"gps0","seq":42,"topic_seq":40,"time":"2024-05-17T08:00:00.100Z","payload":{…}}`
public struct Envelope: Sendable {
    /// Event type, e.g. `obs.fix`; names the payload's schema.
    public var type: String
    /// Schema version of the payload.
    public var version: Int
    /// Id of the plugin (or external program) that published the message.
    public var producer: String
    /// Per-producer sequence number starting at 1, without gaps; a subscriber seeing a jump lost messages.
    public var seq: UInt64
    /// Per-producer-and-topic sequence number starting at 1 (docs/protocol.md 4.2): what a
    /// subscriber to some topic prefixes only compares to tell loss from filtering. Optional on
    /// the wire (producers of protocol version 1 do not write it).
    public var topicSeq: UInt64?
    /// Event time: when the observed thing happened (not when it was sent).
    public var time: EventTime
    public var payload: DecodedPayload
    /// The CURVE key name of the outside publisher that sent the message, added by the hub
    /// (docs/protocol.md 4.1); nil for in-process plugins and plaintext connections. Locus's
    /// encoders never write it: only the hub sets it, and it refuses outside messages that do.
    public var via: String?

    public init(type: String, version: Int, producer: String, seq: UInt64, topicSeq: UInt64? = nil, time: EventTime,
                payload: DecodedPayload, via: String? = nil) {
        self.type = type
        self.version = version
        self.producer = producer
        self.seq = seq
        self.topicSeq = topicSeq
        self.time = time
        self.payload = payload
        self.via = via
    }

    public init<P: Payload>(producer: String, seq: UInt64, topicSeq: UInt64? = nil, time: EventTime, payload: P) {
        self.init(type: P.eventType, version: P.schemaVersion, producer: producer, seq: seq, topicSeq: topicSeq, time: time,
                  payload: .typed(payload))
    }
}

/// Why a message body was refused. The hub counts refusals by this reason.
public enum EnvelopeProblem: String, Sendable, CaseIterable {
    case notJSON = "not_json"
    case missingField = "missing_field"
    case wrongFieldType = "wrong_field_type"
    case unknownType = "unknown_type"
    case badPayload = "bad_payload"
}

public struct EnvelopeError: Error, Sendable, CustomStringConvertible {
    public var problem: EnvelopeProblem
    public var detail: String
    public var description: String { "\(problem.rawValue): \(detail)" }
}

/// Encodes and decodes envelopes with the purpose-built JSON codec.
public enum EnvelopeCodec {
    /// Writes the envelope around a typed payload.
    public static func encode<P: Payload>(_ payload: P, producer: String, seq: UInt64, topicSeq: UInt64? = nil, time: EventTime,
                                          into w: inout JSONWriter) {
        writeHeader(type: P.eventType, version: P.schemaVersion, producer: producer, seq: seq, topicSeq: topicSeq, time: time, into: &w)
        payload.write(to: &w)
        w.endObject()
    }

    public static func encode<P: Payload>(_ payload: P, producer: String, seq: UInt64, topicSeq: UInt64? = nil,
                                          time: EventTime) -> [UInt8] {
        var w = JSONWriter()
        encode(payload, producer: producer, seq: seq, topicSeq: topicSeq, time: time, into: &w)
        return w.bytes
    }

    /// Encodes any envelope (typed or raw payload).
    public static func encode(_ e: Envelope) -> [UInt8] {
        var w = JSONWriter()
        encode(e, into: &w)
        return w.bytes
    }

    /// Writes any envelope (typed or raw payload) as the next value of `w`.
    public static func encode(_ e: Envelope, into w: inout JSONWriter) {
        writeHeader(type: e.type, version: e.version, producer: e.producer, seq: e.seq, topicSeq: e.topicSeq, time: e.time, into: &w)
        switch e.payload {
        case .typed(let p): p.write(to: &w)
        case .raw(let r): w.rawValue(r.json)
        }
        w.endObject()
    }

    static func writeHeader(type: String, version: Int, producer: String, seq: UInt64, topicSeq: UInt64?, time: EventTime,
                            into w: inout JSONWriter) {
        // `field` takes its key as a StaticString and writes key and value with one reservation
        // (`w.key("x")` would take the key as a String, and scan it for escapes).
        w.beginObject()
        w.field("type", type)
        w.field("version", version)
        w.field("producer", producer)
        w.field("seq", seq)
        if let topicSeq { w.field("topic_seq", topicSeq) }
        w.field("time", time)
        w.key("payload" as StaticString)
    }

    /// Decodes a body. Payloads of types in `registry` are decoded to their types; others are
    /// kept raw unless `requireKnownType` is set, in which case types the registry does not know
    /// at all (neither decoded nor declared with `registerRaw`) are refused.
    public static func decode(_ bytes: [UInt8], registry: PayloadRegistry, requireKnownType: Bool = false) throws -> Envelope {
        try bytes.withUnsafeBufferPointer { try decode($0, registry: registry, requireKnownType: requireKnownType) }
    }

    public static func decode(_ buf: UnsafeBufferPointer<UInt8>, registry: PayloadRegistry, requireKnownType: Bool = false) throws -> Envelope {
        var type: String?
        var version: Int?
        var producer: String?
        var seq: UInt64?
        var topicSeq: UInt64?
        var time: EventTime?
        var payload: DecodedPayload?
        var payloadRange: UnsafeBufferPointer<UInt8>?
        var via: String?
        if let bad = UTF8Check.firstInvalid(buf) {
            throw EnvelopeError(problem: .notJSON, detail: "invalid JSON at byte \(bad): not UTF-8")
        }
        var reader = JSONReader(buf)
        do {
            guard try reader.nextKind() == .object else { throw EnvelopeError(problem: .notJSON, detail: "the body is not a JSON object") }
            // A loop over the members rather than `readObject`'s closure: see `JSONReader.enterObject`.
            if try reader.enterObject() {
                repeat {
                    let key = try reader.readMemberKey()
                    // As the hub: a header field given twice is refused (readers would disagree on it).
                    if (key == "type" && type != nil) || (key == "version" && version != nil) || (key == "producer" && producer != nil)
                        || (key == "seq" && seq != nil) || (key == "topic_seq" && topicSeq != nil) || (key == "time" && time != nil)
                        || (key == "payload" && (payload != nil || payloadRange != nil)) || (key == "via" && via != nil) {
                        throw EnvelopeError(problem: .notJSON, detail: "a header field appears twice")
                    }
                    if key == "type" {
                        guard try reader.nextKind() == .string else { throw EnvelopeError(problem: .wrongFieldType, detail: "type must be a string") }
                        type = try reader.readString()
                    } else if key == "version" {
                        guard try reader.nextKind() == .number, let v = try? reader.readInt(), v >= 1 else {
                            throw EnvelopeError(problem: .wrongFieldType, detail: "version must be an integer ≥ 1")
                        }
                        version = v
                    } else if key == "producer" {
                        guard try reader.nextKind() == .string else { throw EnvelopeError(problem: .wrongFieldType, detail: "producer must be a string") }
                        producer = try reader.readString()
                    } else if key == "seq" {
                        guard try reader.nextKind() == .number, let v = try? reader.readInt64(), v >= 0 else {
                            throw EnvelopeError(problem: .wrongFieldType, detail: "seq must be a non-negative integer")
                        }
                        seq = UInt64(v)
                    } else if key == "topic_seq" {
                        guard try reader.nextKind() == .number, let v = try? reader.readInt64(), v >= 0 else {
                            throw EnvelopeError(problem: .wrongFieldType, detail: "topic_seq must be a non-negative integer")
                        }
                        topicSeq = UInt64(v)
                    } else if key == "time" {
                        guard try reader.nextKind() == .string, let t = try? reader.readTime() else {
                            throw EnvelopeError(problem: .wrongFieldType, detail: "time must be an ISO 8601 UTC timestamp")
                        }
                        time = t
                    } else if key == "payload" {
                        guard try reader.nextKind() == .object else { throw EnvelopeError(problem: .wrongFieldType, detail: "payload must be an object") }
                        if let t = type, let decoder = registry.decoder(for: t) {
                            do {
                                payload = .typed(try decoder(&reader))
                            } catch {
                                throw EnvelopeError(problem: .badPayload, detail: "\(t) payload: \(error)")
                            }
                        } else {
                            payloadRange = try reader.readRawValue()
                        }
                    } else if key == "via" {
                        guard try reader.nextKind() == .string else { throw EnvelopeError(problem: .wrongFieldType, detail: "via must be a string") }
                        via = try reader.readString()
                    } else {
                        try reader.skipValue()
                    }
                } while try reader.nextMember()
            }
            try reader.expectEnd()
        } catch let e as EnvelopeError {
            throw e
        } catch {
            throw EnvelopeError(problem: .notJSON, detail: "\(error)")
        }
        guard let type else { throw EnvelopeError(problem: .missingField, detail: "type is missing") }
        guard let version else { throw EnvelopeError(problem: .missingField, detail: "version is missing") }
        guard let producer else { throw EnvelopeError(problem: .missingField, detail: "producer is missing") }
        guard let seq else { throw EnvelopeError(problem: .missingField, detail: "seq is missing") }
        guard let time else { throw EnvelopeError(problem: .missingField, detail: "time is missing") }
        if payload == nil {
            guard let range = payloadRange else { throw EnvelopeError(problem: .missingField, detail: "payload is missing") }
            if let decoder = registry.decoder(for: type) {
                do {
                    payload = .typed(try JSONReader.read(range) { try decoder(&$0) })
                } catch {
                    throw EnvelopeError(problem: .badPayload, detail: "\(type) payload: \(error)")
                }
            } else if requireKnownType && !registry.knows(type) {
                throw EnvelopeError(problem: .unknownType, detail: "no schema for event type '\(type)'")
            } else {
                payload = .raw(RawPayload(eventType: type, schemaVersion: version, json: Array(range)))
            }
        }
        return Envelope(type: type, version: version, producer: producer, seq: seq, topicSeq: topicSeq, time: time,
                        payload: payload!, via: via)
    }
}

/// The bus protocol's version (docs/protocol.md, "Protocol versions"): what `locus ctl status`
/// reports as `hub.protocol`. It goes up when what a reader may rely on changes.
public enum BusProtocol {
    /// 2: envelopes carry `topic_seq`, a sequence per producer and topic.
    public static let version = 2
}
