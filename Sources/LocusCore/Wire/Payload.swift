/// A typed event payload: the `payload` member of an envelope.
///
/// Implementers must:
/// - give a stable dotted `eventType` (it names the JSON Schema `schemas/<eventType>.json`)
///   and bump `schemaVersion` when a field changes meaning or a required field is added;
/// - write exactly one JSON object in `write(to:)` and accept it back in `init(from:)`,
///   ignoring keys they do not know (newer producers may add optional fields);
/// - be a value type with no references to mutable state (payloads cross threads).
public protocol Payload: Sendable {
    static var eventType: String { get }
    static var schemaVersion: Int { get }
    func write(to writer: inout JSONWriter)
    init(from reader: inout JSONReader) throws
}

/// A payload kept as the JSON bytes it arrived in, for types this process does not decode
/// (an external plugin's own events) or when a message is only passed along (replay, file sinks).
public struct RawPayload: Sendable, Equatable {
    public var eventType: String
    public var schemaVersion: Int
    /// One complete JSON value (an object for every Locus type).
    public var json: [UInt8]

    public init(eventType: String, schemaVersion: Int, json: [UInt8]) {
        self.eventType = eventType
        self.schemaVersion = schemaVersion
        self.json = json
    }
}

/// A payload that the codec could not tell apart from another: used when no decoder is registered.
public enum DecodedPayload: Sendable {
    case typed(any Payload)
    case raw(RawPayload)

    /// The event type: the payload type's, or the one a raw payload was recorded with.
    public var eventType: String {
        switch self {
        case .typed(let p): type(of: p).eventType
        case .raw(let r): r.eventType
        }
    }

    /// The schema version, likewise.
    public var schemaVersion: Int {
        switch self {
        case .typed(let p): type(of: p).schemaVersion
        case .raw(let r): r.schemaVersion
        }
    }

    /// The payload as `P`, if it was decoded as that type.
    public func `as`<P: Payload>(_ type: P.Type) -> P? {
        if case .typed(let p) = self { return p as? P }
        return nil
    }
}
