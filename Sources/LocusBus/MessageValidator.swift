import LocusCore

/// The hub's check of one message: topic, size and envelope. Allocation-free for valid
/// messages of the usual event types; call from one thread at a time.
///
/// It applies the rules of `EnvelopeCodec.decode(_:registry:requireKnownType: true)` to the
/// envelope header, validates the payload's JSON grammar with `JSONReader.skipValue`, and —
/// only if `decodePayloads` is set — decodes the payload to count `bad_payload` as well.
public struct MessageValidator {
    public let maxMessageBytes: Int
    public let decodePayloads: Bool
    let knownTypes: KnownEventTypes
    /// What outside publishers' payloads are checked against (`checkOutside`).
    let schemas: PayloadSchemas

    /// `registry` lists the accepted event types; bodies larger than `maxMessageBytes` are `too_large`.
    public init(registry: PayloadRegistry, maxMessageBytes: Int, decodePayloads: Bool = false) {
        self.maxMessageBytes = maxMessageBytes
        self.decodePayloads = decodePayloads
        knownTypes = KnownEventTypes(registry)
        schemas = .locus
    }

    /// Checks a two-frame message. Returns nil if it may be forwarded.
    public func check(topic: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer) -> MessageRejection? {
        let topicBytes = topic.assumingMemoryBound(to: UInt8.self)
        guard Topic.isValid(topicBytes) else { return MessageRejection(reason: .badTopic, detail: Self.describeBadTopic(topicBytes)) }
        guard body.count <= maxMessageBytes else {
            return MessageRejection(reason: .tooLarge, detail: "body of \(body.count) bytes exceeds the limit of \(maxMessageBytes)")
        }
        return checkEnvelope(body.assumingMemoryBound(to: UInt8.self))
    }

    /// Checks an envelope body alone. Returns nil if it is acceptable.
    public func checkEnvelope(_ buffer: UnsafeBufferPointer<UInt8>) -> MessageRejection? {
        if let bad = UTF8Check.firstInvalid(buffer) {
            return MessageRejection(reason: .notJSON, detail: "invalid JSON at byte \(bad): not UTF-8")
        }
        if let envelope = canonicalEnvelope(buffer) {
            guard decodePayloads else { return nil }
            return checkPayload(UnsafeBufferPointer(rebasing: buffer[envelope.payload]), typeIndex: envelope.typeIndex)
        }
        return checkAnyEnvelope(buffer)
    }

    /// The general path: any key order, white space, escapes; finds the exact reason for a refusal.
    func checkAnyEnvelope(_ buffer: UnsafeBufferPointer<UInt8>) -> MessageRejection? {
        // Also here, so the general path alone (tests compare the two) refuses what checkEnvelope does.
        if let bad = UTF8Check.firstInvalid(buffer) {
            return MessageRejection(reason: .notJSON, detail: "invalid JSON at byte \(bad): not UTF-8")
        }
        var s = JSONScanner(buffer)
        var seen: UInt8 = 0 // one bit per header field, in `headerFields` order
        var typeToken = (start: 0, end: 0)
        var payload = (start: 0, end: 0)
        guard let first = s.valueStart() else { return notJSON(s) }
        guard first == 0x7B else { return MessageRejection(reason: .notJSON, detail: "the body is not a JSON object") }
        s.i += 1
        if s.peek() == 0x7D {
            s.i += 1
        } else {
            while true {
                guard s.peek() == 0x22 else { _ = s.fail("expected an object key"); return notJSON(s) }
                let keyStart = s.i
                guard s.key() else { return notJSON(s) }
                let field = EnvelopeHeaderField.classify(s.p + keyStart, s.i - keyStart)
                guard s.peek() == 0x3A else { _ = s.fail("expected ':'"); return notJSON(s) }
                s.i += 1
                guard let c = s.valueStart() else { return notJSON(s) }
                // A repeated header field would mean two things at once: readers that take the
                // first (the hub's own producer check) and the last (most JSON parsers) disagree.
                if field >= 0, seen & (1 << UInt8(field)) != 0 {
                    return MessageRejection(reason: .notJSON, detail: "header field '\(EnvelopeHeaderField.names[field])' appears twice (at byte \(keyStart))")
                }
                switch field {
                case 0: // type
                    guard c == 0x22 else { return wrongType("type must be a string") }
                    typeToken.start = s.i
                    guard s.string() else { return notJSON(s) }
                    typeToken.end = s.i
                    // EnvelopeCodec decodes type and producer with readString, which is stricter about escapes.
                    if s.lastStringEscaped && !JSONScanner.decodes(s.p, typeToken.start, typeToken.end) {
                        return notJSONAt(typeToken.start, "invalid escape")
                    }
                case 1: // version
                    guard c != 0x22, c != 0x7B, c != 0x5B, c != 0x74, c != 0x66, c != 0x6E,
                          let v = s.integer(), v >= 1 else { return wrongType("version must be an integer ≥ 1") }
                case 2: // producer
                    guard c == 0x22 else { return wrongType("producer must be a string") }
                    let start = s.i
                    guard s.string() else { return notJSON(s) }
                    if s.lastStringEscaped && !JSONScanner.decodes(s.p, start, s.i) { return notJSONAt(start, "invalid escape") }
                case 3: // seq
                    guard c != 0x22, c != 0x7B, c != 0x5B, c != 0x74, c != 0x66, c != 0x6E,
                          let v = s.integer(), v >= 0 else { return wrongType("seq must be a non-negative integer") }
                case 6: // topic_seq (optional)
                    guard c != 0x22, c != 0x7B, c != 0x5B, c != 0x74, c != 0x66, c != 0x6E,
                          let v = s.integer(), v >= 0 else { return wrongType("topic_seq must be a non-negative integer") }
                case 4: // time
                    let start = s.i
                    guard c == 0x22, s.string(), CanonicalTimestamp.isTimestamp(s.p + start, s.i - start) else {
                        return wrongType("time must be an ISO 8601 UTC timestamp")
                    }
                case 5: // payload
                    guard c == 0x7B else { return wrongType("payload must be an object") }
                    payload.start = s.i
                    guard s.object(depth: 1) else { return notJSON(s) }
                    payload.end = s.i
                default:
                    guard s.value(depth: 1) else { return notJSON(s) }
                }
                if field >= 0 { seen |= 1 << UInt8(field) }
                guard let d = s.peek() else { _ = s.fail("unterminated object"); return notJSON(s) }
                s.i += 1
                if d == 0x7D { break }
                if d != 0x2C { s.i -= 1; _ = s.fail("expected ',' or '}'"); return notJSON(s) }
            }
        }
        s.skipWhitespace()
        guard s.i == s.n else { _ = s.fail("unexpected data after the value"); return notJSON(s) }
        if seen & EnvelopeHeaderField.requiredMask != EnvelopeHeaderField.requiredMask {
            for (bit, name) in EnvelopeHeaderField.names.enumerated()
            where EnvelopeHeaderField.requiredMask & (1 << UInt8(bit)) != 0 && seen & (1 << UInt8(bit)) == 0 {
                return MessageRejection(reason: .missingField, detail: "\(name) is missing")
            }
        }
        let quoted = UnsafeBufferPointer(start: s.p + typeToken.start, count: typeToken.end - typeToken.start)
        guard let typeIndex = knownTypes.index(ofQuoted: quoted) else {
            return MessageRejection(reason: .unknownType, detail: "no schema for event type '\(Self.typeName(quoted))'")
        }
        guard decodePayloads else { return nil }
        return checkPayload(UnsafeBufferPointer(start: s.p + payload.start, count: payload.end - payload.start), typeIndex: typeIndex)
    }

    /// The refusal of an outside publisher's message (one that `check` passed) whose payload
    /// breaks its type's schema (`PayloadSchema`: every bound, pattern and rule it states, and
    /// a `<source>` topic segment equal to the payload's `source`); nil if it may go on.
    /// Slower than `check` (the payload is read as a tree): for outside messages only.
    public func checkOutside(topic: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer) -> MessageRejection? {
        guard let envelope = try? JSONValue.read(body.assumingMemoryBound(to: UInt8.self)),
              let type = envelope["type"]?.stringValue, let payload = envelope["payload"] else {
            return MessageRejection(reason: .notJSON, detail: "an outside publisher's envelope Locus cannot read as a document")
        }
        guard let schema = schemas.schema(for: type) else { return nil }
        let topicText = String(decoding: topic, as: UTF8.self)
        guard let problem = schema.problem(payload, topic: topicText) else { return nil }
        return MessageRejection(reason: .badPayload, detail: "an outside publisher's \(type) on \(topicText) breaks its schema: \(problem)")
    }

    /// Decodes a payload already found well-formed, to count `bad_payload`.
    private func checkPayload(_ payload: UnsafeBufferPointer<UInt8>, typeIndex: Int) -> MessageRejection? {
        guard let decoder = knownTypes.decoders[typeIndex] else { return nil }
        do {
            _ = try JSONReader.read(payload) { try decoder(&$0) }
            return nil
        } catch {
            return MessageRejection(reason: .badPayload, detail: "\(knownTypes.names[typeIndex]) payload: \(error)")
        }
    }

    private func notJSON(_ s: JSONScanner) -> MessageRejection {
        MessageRejection(reason: .notJSON, detail: s.failureDescription)
    }

    private func notJSONAt(_ offset: Int, _ reason: String) -> MessageRejection {
        MessageRejection(reason: .notJSON, detail: "invalid JSON at byte \(offset): \(reason)")
    }

    private func wrongType(_ detail: String) -> MessageRejection {
        MessageRejection(reason: .wrongFieldType, detail: detail)
    }

    /// The text of a JSON string token, for messages ("?" if it does not decode).
    static func typeName(_ quoted: UnsafeBufferPointer<UInt8>) -> String {
        (try? JSONReader.read(quoted) { try $0.readString() }) ?? "?"
    }

    /// Says what is wrong with a topic without echoing it: a mis-sent frame could hold a body.
    static func describeBadTopic(_ topic: UnsafeBufferPointer<UInt8>) -> String {
        if topic.isEmpty { return "empty topic" }
        if topic.count > Topic.maxLength { return "topic of \(topic.count) bytes is longer than \(Topic.maxLength)" }
        if SyncToken.isToken(UnsafeRawBufferPointer(topic)) { return "a sync token was published as a topic" }
        for (i, c) in topic.enumerated() {
            let ok = (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39) || c == 0x5F || c == 0x2D || c == 0x2E
            if !ok { return "topic of \(topic.count) bytes has byte 0x\(String(c, radix: 16)) at offset \(i); topics are lower-case [a-z0-9_-] segments separated by dots" }
        }
        return "topic of \(topic.count) bytes has an empty segment"
    }
}
