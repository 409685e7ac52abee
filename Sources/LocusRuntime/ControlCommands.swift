import Foundation
import LocusCore

/// What went wrong with a control request; its text goes back to `locus ctl`.
public struct ControlCommandError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Routes control requests (`{"command": "…", "args": {…}}`) to handlers. The runtime registers
/// `status`, `plugins` and `help`, and every command a configured `CommandableService` answers
/// (`region.add`, …; see `ServiceCommandRouter`).
public final class ControlCommands: @unchecked Sendable {
    public typealias Handler = @Sendable (JSONValue) async throws -> JSONValue
    /// Guards `handlers`.
    private let lock = NSLock()
    private var handlers: [String: (summary: String, handler: Handler)] = [:]

    public init() {
        register("help", summary: "List the commands this daemon answers.") { [unowned self] _ in
            .object(self.lock.withLock { self.handlers.mapValues { .string($0.summary) } })
        }
    }

    /// Adds a command. Names are dotted lower-case words; a later registration replaces an earlier one.
    public func register(_ name: String, summary: String, handler: @escaping Handler) {
        lock.lock()
        handlers[name] = (summary, handler)
        lock.unlock()
    }

    /// The names registered so far, sorted.
    public var names: [String] {
        lock.withLock { handlers.keys.sorted() }
    }

    /// Handles one request body and returns the reply body; never throws (errors become `{"ok":false}` replies).
    public func handle(_ request: [UInt8]) async -> [UInt8] {
        let value: JSONValue
        do {
            value = try JSONValue.decode(request)
        } catch {
            return Self.failure("request is not JSON: expected {\"command\": \"status\"}")
        }
        guard let name = value["command"]?.stringValue else {
            return Self.failure("request has no \"command\" string: expected {\"command\": \"status\"}")
        }
        let (entry, known) = lock.withLock { (handlers[name], handlers.keys.sorted()) }
        guard let entry else {
            return Self.failure("unknown command '\(name)'; known: \(known.joined(separator: ", "))")
        }
        do {
            let result = try await entry.handler(value["args"] ?? .object([:]))
            return JSONValue.object(["ok": .bool(true), "result": result]).encoded()
        } catch {
            return Self.failure("\(error)")
        }
    }

    static func failure(_ message: String) -> [UInt8] {
        JSONValue.object(["ok": .bool(false), "error": .string(message)]).encoded()
    }
}
