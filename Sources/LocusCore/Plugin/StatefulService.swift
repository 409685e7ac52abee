import Foundation

/// A service whose memory the runtime keeps: what it needs to continue after a restart (a
/// power cut, `kill -9`, an upgrade) as if nothing had happened.
///
/// The service declares its state as one value; the runtime does everything else. After each
/// batch of messages the runner reads `state`, and when it changed commits it, the events the
/// batch caused and how far the input was processed in one transaction, then publishes the
/// events. A fresh instance built from the same configuration is given the last committed
/// `state` before its first message (docs/writing-plugins.md, "State").
///
/// An implementer must:
/// - keep in `state` everything `receive` reads that came from earlier messages, and nothing
///   from configuration (a restart may come with a changed config file);
/// - make `state = s` restore exactly what `state` returned: a service given its own state
///   back must behave as the instance it was read from (LocusTestKit's `ServiceDriver` with
///   `restartEveryMessage` checks it on every golden case);
/// - keep `State`'s encoding stable across versions, or decode older forms: a state that does
///   not decode starts the service from empty state, with an error logged.
public protocol StatefulService: ServicePlugin {
    associatedtype State: Codable & Equatable
    /// Everything the service remembers between messages.
    var state: State { get set }
    /// False when the configuration asks for no state across restarts (`persist: false`): the
    /// runtime then keeps nothing, and every start is a fresh one. Default: true.
    var keepsState: Bool { get }
}

extension StatefulService {
    public var keepsState: Bool { true }
}

/// A service state that could not be encoded or decoded.
public struct ServiceStateError: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// The one encoding of service states: JSON with sorted keys, so equal states give equal bytes.
public enum ServiceStateCoding {
    public static func encode<S: Encodable>(_ state: S) throws -> [UInt8] {
        if let writable = state as? any JSONWritableState {
            var writer = JSONWriter(capacity: 2048)
            writable.writeState(to: &writer)
            return writer.bytes
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do { return Array(try encoder.encode(state)) } catch {
            throw ServiceStateError("cannot encode \(S.self): \(error)")
        }
    }

    public static func decode<S: Decodable>(_ type: S.Type, from bytes: [UInt8]) throws -> S {
        do { return try JSONDecoder().decode(S.self, from: Data(bytes)) } catch {
            throw ServiceStateError("cannot decode \(S.self): \(error)")
        }
    }
}

/// A service state that writes its JSON itself rather than through `JSONEncoder`, for a state
/// that changes with nearly every message: the standard service's is committed with every
/// batch, and `JSONEncoder` took 2-3 % of a daemon's CPU on it (journal bench, issue 31).
///
/// An implementer must write exactly what `ServiceStateCoding` makes of its `Codable` form, so
/// that decoding (still `Codable`) and stored states are unchanged: keys sorted, nil optionals
/// left out, doubles as `JSONWriter.exactDouble`, times as their milliseconds. A test should
/// compare the two over real states (`StandardStateWritingTests`).
public protocol JSONWritableState: Encodable {
    func writeState(to writer: inout JSONWriter)
}

extension StatefulService {
    /// `state`, encoded.
    public func encodedState() throws -> [UInt8] { try ServiceStateCoding.encode(state) }

    /// Sets `state` from `encodedState()`'s bytes.
    public mutating func restoreState(from bytes: [UInt8]) throws {
        state = try ServiceStateCoding.decode(State.self, from: bytes)
    }

    /// `state`, for comparison without knowing its type.
    public var anyState: any Equatable { state }
}

/// True when `a` and `b` are of the same type and equal.
func statesEqual(_ a: any Equatable, _ b: any Equatable) -> Bool {
    func compare<T: Equatable>(_ a: T) -> Bool { (b as? T) == a }
    return compare(a)
}

extension EventTime: Codable {
    /// Milliseconds since the epoch, as a number: exact, and what `milliseconds` holds.
    public init(from decoder: any Decoder) throws {
        milliseconds = try decoder.singleValueContainer().decode(Int64.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(milliseconds)
    }
}
