import Foundation
import LocusCore
import LocusStore

/// The `web` sink: serves the events it takes to browsers (`WebServer`). Journaled topics are
/// read from the journal (so each carries its journal index as its SSE id and a client can
/// resume after it); others (obs., by default) are served live as they come, without an id.
public struct WebSink: SinkPlugin, ReportsCounters {
    public let configuration: WebConfiguration
    let address: HTTPAddress
    let token: String?
    let journal: JournalLocation?
    public let statistics = SourceCounters<WebCounters>()

    public var subscriptions: [String] { configuration.topics }
    public var reportedCounters: [String: UInt64] { statistics.counterValues }

    public func run(messages: AsyncStream<BusMessage>, context: PluginContext) async throws {
        let feed = EventFeed(historyLimit: configuration.history, queueLimit: configuration.clientQueue,
                             bufferLimit: configuration.clientBuffer, maxClients: configuration.maxClients, counters: statistics)
        let server = WebServer(configuration: configuration, address: address, token: token, feed: feed,
                               journal: journal, logger: context.logger, movedBy: ["change listen of web sink '\(context.id)'"])
        let filter = WebFilter(configuration)
        let keepalive = configuration.keepalive
        let tail = journal.map { JournalTail(directory: $0.directory, startedMs: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down))) }
        if let tail { feed.setJournalNext(tail.position.index) }
        defer { feed.finishAll() }
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run() }
            group.addTask {
                while !Task.isCancelled {
                    try await Task.sleep(for: .seconds(keepalive))
                    feed.keepalive()
                }
            }
            group.addTask { [statistics] in
                for await message in messages {
                    guard filter.takes(message.topic) else { continue }
                    if let journal, let tail, journal.takes(message.topic) {
                        // The hub journals before it forwards: the record is there.
                        tail.read { index, topic, body in
                            guard filter.takes(topic) else { return }
                            if let item = filter.item(id: index, topic: topic, body: body) {
                                feed.add(item)
                            } else {
                                statistics.update { $0.droppedUnreducible += 1 }
                            }
                        }
                    } else if let item = filter.item(id: nil, topic: message.topic, body: message.body) {
                        feed.add(item)
                    } else {
                        statistics.update { $0.droppedUnreducible += 1 }
                    }
                }
            }
            // The bus closed (the daemon is stopping) or the server failed: stop the rest.
            try await group.next()
            group.cancelAll()
        }
    }
}

/// Follows the journal from where the sink started. Used from the sink's message task only.
final class JournalTail: @unchecked Sendable {
    let reader: JournalReader
    private(set) var position: JournalPosition

    init(directory: String, startedMs: Int64) {
        reader = JournalReader(directory: directory)
        // Records appended before the sink started are history, not news.
        position = reader.firstPosition(appendedSince: startedMs)
    }

    /// Hands every record written since the last call to `visit`.
    func read(_ visit: (UInt64, String, [UInt8]) -> Void) {
        let outcome = reader.read(from: position) { entry in
            visit(entry.index, String(decoding: entry.topic, as: UTF8.self), Array(entry.body))
            return true
        }
        position = outcome.next
    }
}

public enum WebPlugin {
    public static let factory = PluginFactory.sink(
        "web", summary: "A web gateway for browsers: the live map page, Server-Sent Events and WebSocket streams (resumable through the journal), /state and /regions.geojson; loopback unless a token is set.",
        config: WebConfiguration.self
    ) { config, setup in
        let address: HTTPAddress
        switch HTTPAddress.parse(config.listen, example: "127.0.0.1:8080") {
        case .success(let a): address = a
        case .failure(let e): throw ConfigValueError(key: "listen", e.description)
        }
        var token: String?
        if !config.tokenFile.isEmpty {
            let path = setup.resolvePath(config.tokenFile)
            guard let text = try? String(contentsOfFile: path, encoding: .utf8),
                  let first = text.split(separator: "\n").first.map({ $0.trimmingCharacters(in: .whitespaces) }), first.count >= 16 else {
                throw ConfigValueError(key: "token_file", "cannot read a token of at least 16 characters from the first line of \(path)")
            }
            token = first
        }
        if token == nil && !address.isLoopback {
            throw ConfigValueError(key: "listen", "\(address.text) is not loopback: anyone who reaches it would see this device's locations. Set token_file (clients then send the token), or listen on 127.0.0.1")
        }
        if config.precision > 0 && PrecisionReduction(metres: config.precision) == nil {
            throw ConfigValueError(key: "precision", "must be 0 (exact) or \(Int(PrecisionReduction.range.lowerBound)) to \(Int(PrecisionReduction.range.upperBound)) metres")
        }
        return WebSink(configuration: config, address: address, token: token, journal: setup.journal)
    }
}
