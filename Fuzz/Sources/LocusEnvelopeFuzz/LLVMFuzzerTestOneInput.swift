import LocusBus
import LocusCore

/// libFuzzer's per-input callback: the input as the body of a message on the hub's ingest
/// socket (docs/protocol.md 4), through the hub's validator with payload decoding on and its
/// schema check of outside payloads, and
/// through the precision reduction of a restricted publish endpoint (docs/security.md).
/// Invariants: for a body the validator accepts, `EnvelopeOrigin` reads the producer and seq
/// `EnvelopeCodec.decode` reads (or neither reads the body); and,
/// reduced (a restricted endpoint only ever gets what the hub accepted; anything else must just
/// not crash it), it is JSON whose payload holds no removed key, a position on the grid and an
/// accuracy no finer than the grid; and what the hub adds for a CURVE client (`via`) keeps it
/// valid (`checkVia`).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data, size <= 1 << 20 else { return 0 }
    let body = UnsafeRawBufferPointer(start: data, count: size)
    let topic = Array("obs.fix.gps0".utf8)
    // The hub's walk for a forged `via` only sees accepted bodies; any other must not crash it.
    _ = EnvelopeVia.isPresent(in: body)
    let accepted = topic.withUnsafeBytes { validator.check(topic: $0, body: body) } == nil
    if accepted {
        // An outside publisher's message the envelope check passed goes on to the schema check
        // (PayloadSchema, PayloadPattern: outside strings into a pattern automaton), on the
        // type's own topic family and beside it: any verdict, never a trap.
        _ = topic.withUnsafeBytes { validator.checkOutside(topic: $0, body: body) }
        _ = Array("obs.nmea.gps0".utf8).withUnsafeBytes { validator.checkOutside(topic: $0, body: body) }
        // The hub's reserved-producer check and the catch-up scan read producers this way.
        let decoded = try? EnvelopeCodec.decode(UnsafeBufferPointer(start: data, count: size), registry: .core)
        // Where EnvelopeOrigin cannot read it, neither can Locus's decoder (the hub then refuses
        // it from outside publishers: OutsidePublisherPolicy).
        guard let origin = EnvelopeOrigin.read(body) else {
            precondition(decoded == nil, "invariant broken: the decoder reads an envelope whose producer/seq EnvelopeOrigin cannot")
            return 0
        }
        if let envelope = decoded {
            precondition(envelope.producer == origin.producer && envelope.seq == origin.seq,
                         "invariant broken: EnvelopeOrigin and EnvelopeCodec disagree on producer or seq")
            checkVia(body, envelope)
        }
    }
    guard let reduced = reduction.reduce(envelope: Array(body)), accepted else { return 0 }
    // As valid as what came in (the hub accepts it too: a header may hold what Foundation's
    // parser refuses, such as a lone surrogate escape), with a payload JSONValue wrote.
    precondition(topic.withUnsafeBytes { t in reduced.withUnsafeBytes { lenient.check(topic: t, body: $0) } } == nil,
                 "invariant broken: the hub would refuse a reduced envelope")
    guard let payload = reducedPayload(reduced) else {
        preconditionFailure("invariant broken: a reduced envelope has no payload object")
    }
    for key in PrecisionReduction.removedKeys { precondition(payload[key] == nil, "invariant broken: \(key) kept") }
    if case .number(let lat)? = payload["lat"], case .number(let lon)? = payload["lon"], lat.isFinite, lon.isFinite {
        let again = reduction.snap(lat: lat, lon: lon)
        precondition(abs(again.lat - lat) < 1e-6 && abs(again.lon - lon) < 1e-6, "invariant broken: not a grid centre")
        precondition((payload["h_accuracy"]?.doubleValue ?? 0) >= 1000, "invariant broken: accuracy finer than the grid")
    }
    return 0
}

/// What the hub does with a message from a CURVE client (docs/protocol.md 4.1): where it finds
/// no `via`, the decoder finds none either, and the body with `via` added is still accepted and
/// decodes to the same envelope with that `via`.
private func checkVia(_ body: UnsafeRawBufferPointer, _ envelope: Envelope) {
    guard !EnvelopeVia.isPresent(in: body) else { return }
    precondition(envelope.via == nil, "invariant broken: the decoder reads a via the hub does not see")
    let name = "key \"é\\"
    guard let stamped = EnvelopeVia.adding(name, to: body) else {
        preconditionFailure("invariant broken: an accepted envelope cannot take a via")
    }
    let topic = Array("obs.fix.gps0".utf8)
    precondition(topic.withUnsafeBytes { t in stamped.withUnsafeBytes { stampedValidator.check(topic: t, body: $0) } } == nil,
                 "invariant broken: the hub would refuse what it stamped")
    let again = try? EnvelopeCodec.decode(stamped, registry: .core)
    precondition(again?.via == name && again?.producer == envelope.producer && again?.seq == envelope.seq,
                 "invariant broken: a stamped envelope does not decode to the same one with its via")
}

private let validator = MessageValidator(registry: .core, maxMessageBytes: 1 << 20, decodePayloads: true)
/// The same with room for the added member.
private let stampedValidator = MessageValidator(registry: .core, maxMessageBytes: 1 << 21, decodePayloads: true)
/// Envelope and JSON checks only: a reduced payload is a different (smaller) object.
private let lenient = MessageValidator(registry: .core, maxMessageBytes: 1 << 21, decodePayloads: false)

/// The payload of a reduced envelope: whole, or after its last `,"payload":` (where
/// `reduce(envelope:)` writes it) when the header holds what JSONValue cannot read.
private func reducedPayload(_ body: [UInt8]) -> [String: JSONValue]? {
    if case .object(let p)? = (try? JSONValue.decode(body))?["payload"] { return p }
    let key = Array(#","payload":"#.utf8)
    guard body.count > key.count else { return nil }
    for i in stride(from: body.count - key.count, through: 0, by: -1) where Array(body[i..<(i + key.count)]) == key {
        if case .object(let p)? = try? JSONValue.decode(Array(body[(i + key.count)..<(body.count - 1)])) { return p }
        return nil
    }
    return nil
}
private let reduction = PrecisionReduction(metres: 1000)!
