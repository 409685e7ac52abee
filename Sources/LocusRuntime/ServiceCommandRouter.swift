import Foundation
import LocusCore
import Logging

/// Which configured services answer which control commands, and which one a request goes to.
///
/// A request `{"command": "region.add", "args": {…}}` goes to the service named by
/// `args.service` if there is one, else to the only service that answers `region.add`; with
/// several, the request must name one. `service` is taken out of the arguments the service sees.
struct ServiceCommandRouter: Sendable {
    /// One service that answers commands.
    struct Answerer: Sendable {
        var id: String
        var commands: [ServiceCommand]
        var perform: @Sendable (_ command: String, _ arguments: JSONValue) async throws -> JSONValue
    }

    /// Command name → the services answering it, in configuration order.
    private(set) var answerers: [String: [Answerer]] = [:]
    /// Command name → its summary, from the first service that declared it.
    private(set) var summaries: [String: String] = [:]
    /// Command names a service declared that are taken by the runtime; they are not routed.
    private(set) var shadowed: [(service: String, command: String)] = []
    /// Every configured plugin id, to tell "no such plugin" from "does not answer this".
    let pluginIDs: Set<String>

    /// - Parameters:
    ///   - reserved: names the runtime answers itself (`status`, `help`, …).
    ///   - pluginIDs: every configured plugin's id.
    init(_ services: [Answerer], reserved: Set<String>, pluginIDs: Set<String>) {
        self.pluginIDs = pluginIDs
        for service in services {
            for command in service.commands {
                if reserved.contains(command.name) {
                    shadowed.append((service.id, command.name))
                    continue
                }
                // A service listing a name twice is still one candidate.
                guard !(answerers[command.name] ?? []).contains(where: { $0.id == service.id }) else { continue }
                answerers[command.name, default: []].append(service)
                if summaries[command.name] == nil { summaries[command.name] = command.summary }
            }
        }
    }

    /// Registers every routed command in `commands`, with its summary (for `help`).
    func register(in commands: ControlCommands) {
        for (name, candidates) in answerers {
            var summary = summaries[name] ?? ""
            if candidates.count > 1 {
                summary += " (services: \(candidates.map(\.id).joined(separator: ", ")); pass service=<id>)"
            }
            commands.register(name, summary: summary) { arguments in
                try await route(name, arguments: arguments)
            }
        }
    }

    /// Sends one request to the service it names or the only one that answers `command`.
    /// - Throws: `ControlCommandError` naming the candidates when the request cannot be routed;
    ///   whatever the service's `perform` throws.
    func route(_ command: String, arguments: JSONValue) async throws -> JSONValue {
        let candidates = answerers[command] ?? []
        let ids = candidates.map(\.id).joined(separator: ", ")
        guard case .object(var fields) = arguments else {
            throw ControlCommandError("the arguments of '\(command)' must be a JSON object (key=value pairs)")
        }
        let target: Answerer
        if let named = fields.removeValue(forKey: "service") {
            guard let id = named.stringValue else {
                throw ControlCommandError("service must be a service id (a string), e.g. service=\(candidates.first?.id ?? "fences")")
            }
            guard let match = candidates.first(where: { $0.id == id }) else {
                if !pluginIDs.contains(id) {
                    throw ControlCommandError("there is no plugin '\(id)'; services that answer '\(command)': \(ids)")
                }
                throw ControlCommandError("service '\(id)' does not answer '\(command)'; services that do: \(ids)")
            }
            target = match
        } else {
            guard let only = candidates.first else {
                throw ControlCommandError("no service answers '\(command)'")
            }
            guard candidates.count == 1 else {
                throw ControlCommandError("several services answer '\(command)' (\(ids)); name one with service=<id>")
            }
            target = only
        }
        return try await target.perform(command, .object(fields))
    }
}
