/// One message as delivered to services and sinks: its topic, decoded envelope, and the body
/// bytes it arrived as (so sinks can write it without re-encoding).
public struct BusMessage: Sendable {
    public var topic: String
    public var envelope: Envelope
    public var body: [UInt8]

    public init(topic: String, envelope: Envelope, body: [UInt8]) {
        self.topic = topic
        self.envelope = envelope
        self.body = body
    }

    public init(topic: String, envelope: Envelope) {
        self.init(topic: topic, envelope: envelope, body: EnvelopeCodec.encode(envelope))
    }

    public var time: EventTime { envelope.time }

    /// The payload as `P`, if this message carries one.
    public func payload<P: Payload>(_ type: P.Type) -> P? { envelope.payload.as(type) }
}

/// Locus's recording format: one JSON object per line, `{"topic":"…","envelope":{…}}`,
/// as `locus record` writes it and the replay source reads it.
public enum RecordingLine {
    /// One line, newline included, for an envelope already encoded as `body`.
    public static func encode(topic: String, body: [UInt8]) -> [UInt8] {
        var w = JSONWriter(capacity: body.count + topic.utf8.count + 32)
        write(topic: topic, into: &w) { $0.rawValue(body) }
        return w.bytes
    }

    /// Appends one line, newline included, to `w`; `envelope` writes the envelope object.
    /// Writers that produce many lines (`locus decode`) reuse one `JSONWriter` as their output
    /// buffer this way, without a copy of each envelope.
    public static func write(topic: String, into w: inout JSONWriter, envelope: (inout JSONWriter) -> Void) {
        w.beginObject()
        w.key("topic"); w.string(topic)
        w.key("envelope" as StaticString)
        envelope(&w)
        w.endObject()
        w.endLine()
    }

    /// Splits a recording line into topic and envelope body bytes (not yet decoded).
    public static func split(_ line: [UInt8]) throws -> (topic: String, body: [UInt8]) {
        var topic: String?
        var body: [UInt8]?
        try JSONReader.read(line) { r in
            try r.readObject { r, key in
                if key == "topic" { topic = try r.readString() }
                else if key == "envelope" { body = Array(try r.readRawValue()) }
                else { try r.skipValue() }
            }
        }
        guard let topic, let body else {
            throw JSONReadError(offset: 0, reason: "a recording line needs \"topic\" and \"envelope\"")
        }
        return (topic, body)
    }
}
