import Foundation
import LocusCore

/// The gateway's fan-out: every event the sink takes goes to each connected client whose
/// topics match, through a bounded queue per client (a client that reads slower than events
/// come loses the oldest, counted), into a bounded history for late clients, and into the
/// state `/state` serves. Used from the sink's task (add) and from request handlers
/// (subscribe, unsubscribe, snapshots), hence the lock.
public final class EventFeed: @unchecked Sendable {
    /// What a client's queue carries: an event, or a keep-alive tick for idle SSE streams.
    public enum Delivery: Sendable {
        case event(FeedItem)
        case keepalive
        /// A message for this client only (a WebSocket request's answer).
        case reply([UInt8])
    }

    /// A connected client: its queue and the topics it wants (nil: all the gateway takes).
    struct Client {
        var continuation: AsyncStream<Delivery>.Continuation
        var topics: [String]?
    }

    /// One client's subscription, handed to its request handler.
    public struct Subscription: Sendable {
        public let id: Int
        public let stream: AsyncStream<Delivery>
        /// The journal index the live stream starts at: a resuming client reads the journal
        /// before it, up to here.
        public let journalNext: UInt64
        /// The history as it was when the client subscribed (older than anything in `stream`).
        public let history: [FeedItem]
    }

    private let lock = NSLock()
    private var clients: [Int: Client] = [:]
    private var nextClientID = 0
    private var history: [FeedItem] = []
    private var historyStart = 0
    private let historyLimit: Int
    private let queueLimit: Int
    private let maxClients: Int
    private var journalNext: UInt64 = 0
    private var state = WebState()
    public let counters: SourceCounters<WebCounters>

    public init(historyLimit: Int, queueLimit: Int, maxClients: Int, counters: SourceCounters<WebCounters> = .init()) {
        self.historyLimit = historyLimit
        self.queueLimit = queueLimit
        self.maxClients = maxClients
        self.counters = counters
    }

    /// Number of connected clients.
    public var clientCount: Int { lock.withLock { clients.count } }

    /// Hands an event to every client that wants it, the history and the state.
    public func add(_ item: FeedItem) {
        var sent = 0, dropped = 0
        lock.withLock {
            if let id = item.id { journalNext = max(journalNext, id + 1) }
            state.apply(item)
            if historyLimit > 0 {
                if history.count < historyLimit {
                    history.append(item)
                } else {
                    history[historyStart] = item
                    historyStart = (historyStart + 1) % historyLimit
                }
            }
            for (_, c) in clients where item.matches(c.topics) {
                if case .dropped = c.continuation.yield(.event(item)) { dropped += 1 } else { sent += 1 }
            }
        }
        if sent + dropped > 0 { counters.update { $0.sent += sent; $0.droppedSlowClient += dropped } }
    }

    /// Where the journal tail continues from (`add` moves it past each journaled event).
    public func setJournalNext(_ next: UInt64) { lock.withLock { journalNext = max(journalNext, next) } }

    /// A keep-alive for every client (SSE streams write a comment line).
    public func keepalive() {
        lock.withLock { for (_, c) in clients { c.continuation.yield(.keepalive) } }
    }

    /// Registers a client, or nil when `maxClients` are connected (counted).
    public func subscribe(topics: [String]?, withHistory: Bool) -> Subscription? {
        let (stream, continuation) = AsyncStream<Delivery>.makeStream(bufferingPolicy: .bufferingNewest(queueLimit))
        let result: Subscription? = lock.withLock {
            guard clients.count < maxClients else { return nil }
            let id = nextClientID
            nextClientID += 1
            clients[id] = Client(continuation: continuation, topics: topics)
            let past = withHistory ? Array(history[historyStart...] + history[..<historyStart]).filter { $0.matches(topics) } : []
            return Subscription(id: id, stream: stream, journalNext: journalNext, history: past)
        }
        if result == nil {
            continuation.finish()
            counters.update { $0.clientsRefused += 1 }
        } else {
            counters.update { $0.clientsOpened += 1; $0.clientsOpen += 1 }
            continuation.onTermination = { [weak self] _ in self?.unsubscribe(result!.id) }
        }
        return result
    }

    /// Queues a message for one client.
    public func reply(_ id: Int, _ json: [UInt8]) { lock.withLock { _ = clients[id]?.continuation.yield(.reply(json)) } }

    /// Changes a client's topics (WebSocket subscribe/unsubscribe).
    public func setTopics(_ id: Int, _ topics: [String]?) { lock.withLock { clients[id]?.topics = topics } }

    public func unsubscribe(_ id: Int) {
        let c = lock.withLock { clients.removeValue(forKey: id) }
        if c != nil { counters.update { $0.clientsOpen -= 1 } }
        c?.continuation.finish()
    }

    /// Ends every client's stream (the sink is stopping).
    public func finishAll() {
        let all = lock.withLock { () -> [Client] in
            let a = Array(clients.values)
            clients.removeAll()
            return a
        }
        counters.update { $0.clientsOpen -= all.count }
        for c in all { c.continuation.finish() }
    }

    /// `GET /state`.
    public func stateJSON() -> [UInt8] { lock.withLock { state.json() } }

    /// `GET /regions.geojson`.
    public func regionsGeoJSON() -> [UInt8] { lock.withLock { state.geoJSON() } }
}
