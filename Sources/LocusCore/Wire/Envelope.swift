/// The body of every bus message: who published what, when, and the typed payload.
///
/// Wire form (one compact JSON object, keys in this order when Locus writes it):
/// `{"type":"obs.fix","version":1,"producer":"gps0","seq":42,"time":"2024-05-17T08:00:00.100Z","payload":{…}}`
public struct Envelope: Sendable {
    /// Event type, e.g. `obs.fix`; names the payload's schema.
    public var type: String
    /// Schema version of the payload.
    public var version: Int
    /// Id of the plugin (or external program) that published the message.
    public var producer: String
    /// Per-producer sequence number starting at 1, without gaps; a subscriber seeing a jump lost messages.
    public var seq: UInt64
    /// Event time: when the observed thing happened (not when it was sent).
    public var time: EventTime
    public var payload: DecodedPayload

    public init(type: String, version: Int, producer: String, seq: UInt64, time: EventTime, payload: DecodedPayload) {
        self.type = type
        self.version = version
        self.producer = producer
        self.seq = seq
        self.time = time
        self.payload = payload
    }

    public init<P: Payload>(producer: String, seq: UInt64, time: EventTime, payload: P) {
        self.init(type: P.eventType, version: P.schemaVersion, producer: producer, seq: seq, time: time, payload: .typed(payload))
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
    public static func encode<P: Payload>(_ payload: P, producer: String, seq: UInt64, time: EventTime,
                                          into w: inout JSONWriter) {
        writeHeader(type: P.eventType, version: P.schemaVersion, producer: producer, seq: seq, time: time, into: &w)
        payload.write(to: &w)
        w.endObject()
    }

    public static func encode<P: Payload>(_ payload: P, producer: String, seq: UInt64, time: EventTime) -> [UInt8] {
        var w = JSONWriter()
        encode(payload, producer: producer, seq: seq, time: time, into: &w)
        return w.bytes
    }

    /// Encodes any envelope (typed or raw payload).
    public static func encode(_ e: Envelope) -> [UInt8] {
        var w = JSONWriter()
        writeHeader(type: e.type, version: e.version, producer: e.producer, seq: e.seq, time: e.time, into: &w)
        switch e.payload {
        case .typed(let p): p.write(to: &w)
        case .raw(let r): w.rawValue(r.json)
        }
        w.endObject()
        return w.bytes
    }

    static func writeHeader(type: String, version: Int, producer: String, seq: UInt64, time: EventTime, into w: inout JSONWriter) {
        w.beginObject()
        w.key("type"); w.string(type)
        w.key("version"); w.int(version)
        w.key("producer"); w.string(producer)
        w.key("seq"); w.uint64(seq)
        w.key("time"); w.time(time)
        w.key("payload")
    }

    /// Decodes a body. Payloads of types in `registry` are decoded to their types; others are
    /// kept raw unless `requireKnownType` is set, in which case they are refused.
    public static func decode(_ bytes: [UInt8], registry: PayloadRegistry, requireKnownType: Bool = false) throws -> Envelope {
        try bytes.withUnsafeBufferPointer { try decode($0, registry: registry, requireKnownType: requireKnownType) }
    }

    public static func decode(_ buf: UnsafeBufferPointer<UInt8>, registry: PayloadRegistry, requireKnownType: Bool = false) throws -> Envelope {
        var type: String?
        var version: Int?
        var producer: String?
        var seq: UInt64?
        var time: EventTime?
        var payload: DecodedPayload?
        var payloadRange: UnsafeBufferPointer<UInt8>?
        var reader = JSONReader(buf)
        do {
            guard try reader.nextKind() == .object else { throw EnvelopeError(problem: .notJSON, detail: "the body is not a JSON object") }
            try reader.readObject { r, key in
                if key == "type" {
                    guard try r.nextKind() == .string else { throw EnvelopeError(problem: .wrongFieldType, detail: "type must be a string") }
                    type = try r.readString()
                } else if key == "version" {
                    guard try r.nextKind() == .number, let v = try? r.readInt(), v >= 1 else {
                        throw EnvelopeError(problem: .wrongFieldType, detail: "version must be an integer ≥ 1")
                    }
                    version = v
                } else if key == "producer" {
                    guard try r.nextKind() == .string else { throw EnvelopeError(problem: .wrongFieldType, detail: "producer must be a string") }
                    producer = try r.readString()
                } else if key == "seq" {
                    guard try r.nextKind() == .number, let v = try? r.readInt64(), v >= 0 else {
                        throw EnvelopeError(problem: .wrongFieldType, detail: "seq must be a non-negative integer")
                    }
                    seq = UInt64(v)
                } else if key == "time" {
                    guard try r.nextKind() == .string, let t = try? r.readTime() else {
                        throw EnvelopeError(problem: .wrongFieldType, detail: "time must be an ISO 8601 UTC timestamp")
                    }
                    time = t
                } else if key == "payload" {
                    guard try r.nextKind() == .object else { throw EnvelopeError(problem: .wrongFieldType, detail: "payload must be an object") }
                    if let t = type, let decoder = registry.decoder(for: t) {
                        let start = r.position
                        do {
                            payload = .typed(try decoder(&r))
                        } catch {
                            throw EnvelopeError(problem: .badPayload, detail: "\(t) payload: \(error)")
                        }
                        _ = start
                    } else {
                        payloadRange = try r.readRawValue()
                    }
                } else {
                    try r.skipValue()
                }
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
            } else if requireKnownType {
                throw EnvelopeError(problem: .unknownType, detail: "no schema for event type '\(type)'")
            } else {
                payload = .raw(RawPayload(eventType: type, schemaVersion: version, json: Array(range)))
            }
        }
        return Envelope(type: type, version: version, producer: producer, seq: seq, time: time, payload: payload!)
    }
}
