import Foundation
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import LocusCore
import LocusStore
import LocusWebRequests
import Logging
import NIOCore
import ServiceLifecycle

/// The gateway's HTTP server (Hummingbird 2, with its WebSocket upgrade): the map page, `/state`,
/// `/regions.geojson`, `/events` (Server-Sent Events, resumable through the journal) and `/ws`.
/// Every request needs the token when one is set. The `web` sink and `locus view` run it.
public final class WebServer: Sendable {
    public let address: HTTPAddress
    let token: String?
    let feed: EventFeed
    let filter: WebFilter
    let configuration: WebConfiguration
    /// The daemon's journal, for clients resuming with Last-Event-ID; nil: from now on only.
    let journal: JournalLocation?
    let logger: Logger
    let onRunning: @Sendable (String) -> Void
    /// Live (the daemon) or a recording (`locus view`), which the page says in its status.
    let mode: PageMode
    /// Event streams open per client address (`max_streams_per_address`).
    let streams: AddressConnectionTable
    /// What moves the server to another port, for the error when its port is taken (`PortInUse`).
    let movedBy: [String]

    public init(configuration: WebConfiguration, address: HTTPAddress, token: String?, feed: EventFeed,
                journal: JournalLocation?, logger: Logger, mode: PageMode = .live, movedBy: [String] = ["change listen"],
                onRunning: @escaping @Sendable (String) -> Void = { _ in }) {
        self.mode = mode
        self.movedBy = movedBy
        self.configuration = configuration
        self.address = address
        self.token = token
        self.feed = feed
        self.filter = WebFilter(configuration)
        self.journal = journal
        self.logger = logger
        self.onRunning = onRunning
        self.streams = AddressConnectionTable(limit: configuration.maxStreamsPerAddress)
    }

    /// Takes a stream's place in its address's count until `channel` closes; false (counted as
    /// `streams_refused`) when the address has `max_streams_per_address` open. One address
    /// holding streams would otherwise hold all of its `max_connections_per_address`, and on
    /// loopback every local client (another user's browser, a script asking `/state`) has
    /// that address.
    func acquireStream(on channel: any Channel) -> Bool {
        guard let address = channel.remoteAddress?.ipAddress else { return true }
        guard streams.acquire(address) else {
            feed.counters.update { $0.streamsRefused += 1 }
            return false
        }
        let streams = self.streams
        channel.closeFuture.whenComplete { _ in streams.release(address) }
        return true
    }

    /// The page's address (with the token, which the page passes on to its requests).
    public var pageURL: String { pageURL(port: address.port) }

    /// The page's address on `port` (the one bound, when `address` asks for any free port: 0).
    func pageURL(port: Int) -> String {
        "http://\(HTTPAddress(host: address.host, port: port).text)/" + (token.map { "?token=" + ($0.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? "") } ?? "")
    }

    // MARK: Authentication

    func authorized(header: String?, query: [String: String]) -> Bool {
        guard let token else { return true }
        let given = header.flatMap { $0.hasPrefix("Bearer ") ? String($0.dropFirst(7)) : nil } ?? query["token"] ?? ""
        // Compared in time independent of where they differ.
        let a = Array(given.utf8), b = Array(token.utf8)
        var diff = a.count ^ b.count
        for i in 0..<max(a.count, b.count) { diff |= Int((i < a.count ? a[i] : 0) ^ (i < b.count ? b[i] : 0)) }
        return diff == 0
    }

    func authorized(_ request: Request) -> Bool {
        authorized(header: request.headers[.authorization], query: QueryItems.parse(request.uri.query))
    }

    static func text(_ status: HTTPResponse.Status, _ message: String) -> Response {
        Response(status: status, headers: [.contentType: "text/plain; charset=utf-8"],
                 body: ResponseBody(byteBuffer: ByteBuffer(string: message + "\n")))
    }

    static func json(_ bytes: [UInt8], type: String = "application/json") -> Response {
        Response(status: .ok, headers: [.contentType: type, .cacheControl: "no-store"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    func unauthorized() -> Response {
        feed.counters.update { $0.unauthorized += 1 }
        return Self.text(.unauthorized, "a token is needed: Authorization: Bearer <token>, or ?token=<token>")
    }

    // MARK: Routes

    func router() -> Router<WebRequestContext> {
        let router = Router(context: WebRequestContext.self)
        for (name, asset) in PageAssets.files {
            let path = name == "index.html" ? "/" : "/" + name
            router.get(RouterPath(path)) { [self] request, _ -> Response in
                guard authorized(request) else { return unauthorized() }
                return Response(status: .ok, headers: [.contentType: asset.contentType, .cacheControl: "no-cache"],
                                body: ResponseBody(byteBuffer: ByteBuffer(bytes: asset.bytes)))
            }
        }
        router.get("/config.json") { [self] request, _ -> Response in
            guard authorized(request) else { return unauthorized() }
            var fields: [String: JSONValue] = ["tile_url": .string(configuration.tileURL), "title": .string(configuration.title),
                                               "attribution": .string(configuration.tileAttribution)]
            if case .recording(let span) = mode {
                fields["recording"] = .object(span.map { ["from": .string($0.lowerBound.iso8601), "to": .string($0.upperBound.iso8601)] } ?? [:])
            }
            let o: JSONValue = .object(fields)
            return Self.json(o.encoded())
        }
        router.get("/state") { [self] request, _ -> Response in
            guard authorized(request) else { return unauthorized() }
            return Self.json(feed.stateJSON())
        }
        router.get("/regions.geojson") { [self] request, _ -> Response in
            guard authorized(request) else { return unauthorized() }
            return Self.json(feed.regionsGeoJSON(), type: "application/geo+json")
        }
        router.get("/events") { [self] request, context -> Response in
            try events(request, channel: context.channel)
        }
        router.get("/metrics") { [self] request, _ -> Response in
            guard authorized(request) else { return unauthorized() }
            guard let m = DaemonMetrics.current() else { return Self.text(.notFound, "no metrics here: they are the daemon's (locus run)") }
            return Response(status: .ok, headers: [.contentType: m.contentType], body: ResponseBody(byteBuffer: ByteBuffer(bytes: m.body)))
        }
        router.get("/ws") { [self] request, _ -> Response in
            guard authorized(request) else { return unauthorized() }
            return Self.text(.badRequest, "/ws is a WebSocket: connect with a WebSocket client")
        }
        return router
    }

    // MARK: Server-Sent Events

    func events(_ request: Request, channel: any Channel) throws -> Response {
        let query = QueryItems.parse(request.uri.query)
        guard authorized(header: request.headers[.authorization], query: query) else { return unauthorized() }
        let (topics, bad) = QueryItems.topics(query["topics"])
        if let bad { return Self.text(.badRequest, "'\(bad)' is not a topic prefix: lower-case segments of a-z 0-9 _ - joined by dots") }
        let lastIDText = request.headers.first { $0.name.canonicalName == "last-event-id" }?.value ?? query["last_event_id"]
        let resumeAfter: UInt64?
        switch LastEventID.parse(lastIDText) {
        case .success(let n): resumeAfter = n
        case .failure(let e): return Self.text(.badRequest, e.description)
        }
        guard acquireStream(on: channel) else {
            // And the connection closed: kept alive, it would hold the address's place as well.
            let text = ByteBuffer(string: "too many event streams from this address (max_streams_per_address \(configuration.maxStreamsPerAddress)); try again later\n")
            return Response(status: .serviceUnavailable, headers: [.contentType: "text/plain; charset=utf-8", .connection: "close"],
                            body: ResponseBody { writer in
                                try await writer.write(text)
                                try await writer.finish(nil)
                                channel.close(promise: nil)
                            })
        }
        guard let sub = feed.subscribe(topics: topics, withHistory: resumeAfter == nil && query["history"] == "1",
                                       close: { channel.close(promise: nil) }) else {
            return Self.text(.serviceUnavailable, "too many event streams (max_clients \(configuration.maxClients)); try again later")
        }
        Self.unsubscribe(sub.id, from: feed, whenClosed: channel)
        EventStreamEOF.install(on: channel)
        let feed = self.feed, filter = self.filter, journal = self.journal
        let body = ResponseBody { writer in
            defer { feed.unsubscribe(sub.id) }
            // The browser waits 2 s before reconnecting (and sends Last-Event-ID then).
            try await writer.write(ByteBuffer(string: "retry: 2000\n: locus\n\n"))
            if let history = sub.history { try await EventStreamResponse.writeHistory(history, topics: topics, to: &writer) }
            if let after = resumeAfter, let journal {
                try await Self.backlog(after: after, until: sub.journalNext, journal: journal, topics: topics,
                                       filter: filter, counters: feed.counters, writer: &writer)
            }
            try await EventStreamResponse.writeLive(sub.outbox, counters: feed.counters, to: &writer)
            try await writer.finish(nil)
        }
        return Response(status: .ok, headers: [.contentType: "text/event-stream", .cacheControl: "no-cache"], body: body)
    }

    /// Journal records after `after` and before `until` (where the live stream starts), in
    /// chunks, filtered as live events are. Records deleted by retention are reported with an
    /// `event: gap` and counted.
    static func backlog(after: UInt64, until: UInt64, journal: JournalLocation, topics: [String]?, filter: WebFilter,
                        counters: SourceCounters<WebCounters>, writer: inout any ResponseBodyWriter) async throws {
        let reader = JournalReader(directory: journal.directory)
        var position = JournalPosition(index: after + 1)
        var first = true
        while position.index < until {
            var frames: [UInt8] = []
            var count = 0
            let outcome = reader.read(from: position) { entry in
                guard entry.index < until, count < 1000 else { return false }
                count += 1
                if first, entry.index > after + 1 {
                    let missing = entry.index - (after + 1)
                    counters.update { $0.droppedRetention += Int(missing) }
                    frames += Array("event: gap\ndata: {\"from\":\(after + 1),\"to\":\(entry.index)}\n\n".utf8)
                }
                first = false
                let topic = String(decoding: entry.topic, as: UTF8.self)
                guard filter.takes(topic), FeedItem.topic(topic, matches: topics) else { return true }
                guard let item = filter.item(id: entry.index, topic: topic, body: Array(entry.body)) else {
                    counters.update { $0.droppedUnreducible += 1 }
                    return true
                }
                frames += item.sseFrame
                return true
            }
            if !frames.isEmpty { try await EventStreamResponse.write(ByteBuffer(bytes: frames), to: &writer) }
            if count == 0 { break }   // nothing more written yet (or a damaged tail): live takes over
            position = outcome.next
        }
    }

    /// Ends a client's stream as soon as its connection closes: its writer may be waiting
    /// for the next event (or keep-alive), whose write would be the first to notice.
    static func unsubscribe(_ id: Int, from feed: EventFeed, whenClosed channel: any Channel) {
        channel.closeFuture.whenComplete { _ in feed.unsubscribe(id) }
    }

    // MARK: WebSocket

    /// `/ws`: the client sends `{"subscribe":["region.",…]}` and `{"unsubscribe":[…]}` (text
    /// messages, at most 64 KiB); the server answers `{"subscribed":[…]}` (or `{"error":…}`) and
    /// sends each event as a text message, the same JSON as an SSE `data:` line.
    func upgrade(_ head: HTTPRequest, channel: any Channel) -> ShouldUpgradeResult<WebSocketDataHandler<HTTP1WebSocketUpgradeChannel.Context>> {
        let target = QueryItems.split(target: head.path ?? "/")
        guard target.path == "/ws" else { return .dontUpgrade }
        guard authorized(header: head.headerFields[.authorization], query: QueryItems.parse(target.query)) else { return .dontUpgrade }
        guard acquireStream(on: channel) else { return .dontUpgrade }
        let feed = self.feed
        return .upgrade([:]) { inbound, outbound, _ in
            guard let sub = feed.subscribe(topics: [], withHistory: false, close: { channel.close(promise: nil) }) else {
                try await outbound.close(.unexpectedServerError, reason: "too many event streams")
                return
            }
            Self.unsubscribe(sub.id, from: feed, whenClosed: channel)
            defer { feed.unsubscribe(sub.id) }
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    var topics: [String] = []
                    for try await message in inbound.messages(maxSize: Self.webSocketMaxMessageBytes) {
                        guard case .text(let text) = message else { continue }
                        let reply = WebSocketRequest.apply(text, to: &topics)
                        if reply.bad { feed.counters.update { $0.badRequests += 1 } }
                        feed.setTopics(sub.id, topics)
                        feed.reply(sub.id, reply.json)
                    }
                    feed.unsubscribe(sub.id)
                }
                group.addTask {
                    while let batch = await sub.outbox.next() {
                        var events = 0
                        for delivery in batch {
                            switch delivery {
                            case .event(let item):
                                try await outbound.write(.text(String(decoding: item.json, as: UTF8.self)))
                                events += 1
                            case .reply(let bytes): try await outbound.write(.text(String(decoding: bytes, as: UTF8.self)))
                            case .keepalive: break
                            }
                        }
                        sub.outbox.written()
                        if events > 0 { feed.counters.update { $0.sent += events } }
                    }
                }
                try await group.next()
                group.cancelAll()
            }
        }
    }

    /// The largest WebSocket message a client may send (a subscribe request), and the largest
    /// frame: browsers send a message as one frame. NIOWebSocket's frame decoder refuses a
    /// longer frame before buffering it (`Fuzz/`'s `webframe` target checks that).
    public static let webSocketMaxMessageBytes = 65536

    // MARK: Running

    /// The HTTP server with the gateway's guards (`GuardedHTTPChannel`) in front of
    /// Hummingbird's HTTP/1 with WebSocket upgrade.
    func serverBuilder() -> HTTPServerBuilder {
        let limits = ConnectionLimits(configuration)
        let addresses = AddressConnectionTable(limit: limits.maxConnectionsPerAddress)
        let counters = feed.counters
        let http1 = HTTP1Channel.Configuration(
            additionalChannelHandlers: [RequestLifecycleObserver()],
            // RequestHeadGuard counts whole heads first; the decoder's own limit is the
            // backstop for heads it does not count (pipelined requests).
            httpDecoderConfiguration: .init(maxHeaderFieldSize: limits.maxHeaderBytes, maxHeaderListSize: limits.maxHeaderBytes))
        let ws = WebSocketServerConfiguration(maxFrameSize: Self.webSocketMaxMessageBytes, closeTimeout: .seconds(2))
        return HTTPServerBuilder { [self] responder in
            GuardedHTTPChannel(
                base: HTTP1WebSocketUpgradeChannel(responder: responder, configuration: .init(http1: http1, ws: ws)) { head, channel, _ in
                    self.upgrade(head, channel: channel)
                },
                limits: limits, addresses: addresses, counters: counters)
        }
    }

    /// Serves until cancelled. Cancelling stops the server gracefully rather than cancelling
    /// Hummingbird's tasks (which logs "Waiting on child channel: CancellationError()" and
    /// "Server shutdown error: Already closed" as errors on every normal stop): the event
    /// streams end and their connections close, the listening socket closes, and the server
    /// returns once its other connections have finished their requests.
    public func run() async throws {
        let app = Application(
            router: router(),
            server: serverBuilder(),
            configuration: .init(address: .hostname(address.host, port: address.port), serverName: "locus"),
            onServerRunning: { [self] channel in
                let port = channel.localAddress?.port ?? address.port
                logger.info("serving the web gateway", metadata: ["url": "\(pageURL(port: port).prefix { $0 != "?" })",
                                                                 "bound": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
                onRunning(pageURL(port: port))
            },
            logger: logger)
        var groupConfiguration = ServiceGroupConfiguration(services: [app], logger: logger)
        // A connection still busy after this (a large page on a stalled client) is cancelled.
        groupConfiguration.maximumGracefulShutdownDuration = .seconds(5)
        let group = ServiceGroup(configuration: groupConfiguration)
        // Its own task, so that cancelling ours reaches the server as a graceful shutdown
        // (below) and not as a cancellation.
        let serving = Task { try await group.run() }
        let feed = self.feed
        do {
            try await withTaskCancellationHandler {
                try await serving.value
            } onCancel: {
                feed.finishAll()
                Task { await group.triggerGracefulShutdown() }
            }
        } catch is CancellationError {
            return
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            throw PortInUse(address: address.text, port: address.port, movedBy: movedBy)
        } catch {
            throw WebServerError(description: "cannot serve on \(address.text): \(error)")
        }
    }
}

public struct WebServerError: Error, CustomStringConvertible {
    public var description: String
}
