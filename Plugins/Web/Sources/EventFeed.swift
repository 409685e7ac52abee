import Foundation
import LocusCore

/// The gateway's fan-out: every event the sink takes goes to each connected client whose
/// topics match, through a bounded outbox per client (`ClientOutbox`: a client that falls
/// `client_queue` events or `client_buffer` bytes behind is cut off, counted), into the history
/// for late clients (`EventHistory`, shared by reference), and into the state `/state` serves.
/// Used from the sink's task (add) and from request handlers (subscribe, unsubscribe,
/// snapshots), hence the lock; it guards every `var`.
public final class EventFeed: @unchecked Sendable {
    /// What a client's outbox carries: an event, or a keep-alive tick for idle SSE streams.
    public enum Delivery: Sendable {
        case event(FeedItem)
        case keepalive
        /// A message for this client only (a WebSocket request's answer).
        case reply([UInt8])
    }

    /// A connected client: its outbox, the topics it wants (nil: all the gateway takes), and
    /// how to close its connection when it is cut off.
    struct Client {
        var outbox: ClientOutbox
        var topics: [String]?
        var close: @Sendable () -> Void
    }

    /// One client's subscription, handed to its request handler.
    public struct Subscription: Sendable {
        public let id: Int
        public let outbox: ClientOutbox
        /// The journal index the live stream starts at: a resuming client reads the journal
        /// before it, up to here.
        public let journalNext: UInt64
        /// The history as it was when the client subscribed (older than anything in
        /// `outbox`), when it asked for it.
        public let history: HistorySnapshot?
    }

    /// Guards `clients`, `nextClientID`, `history`, `journalNext` and `state`.
    private let lock = NSLock()
    private var clients: [Int: Client] = [:]
    private var nextClientID = 0
    private var history: EventHistory
    private let queueLimit: Int
    private let bufferLimit: Int
    private let maxClients: Int
    private var journalNext: UInt64 = 0
    private var state = WebState()
    public let counters: SourceCounters<WebCounters>

    public init(historyLimit: Int, queueLimit: Int, bufferLimit: Int = 262_144, maxClients: Int,
                counters: SourceCounters<WebCounters> = .init()) {
        self.history = EventHistory(limit: historyLimit)
        self.queueLimit = queueLimit
        self.bufferLimit = bufferLimit
        self.maxClients = maxClients
        self.counters = counters
    }

    /// Number of connected clients.
    public var clientCount: Int { lock.withLock { clients.count } }

    /// Hands an event to every client that wants it, the history and the state.
    public func add(_ item: FeedItem) {
        let cut: [Client] = lock.withLock {
            if let id = item.id { journalNext = max(journalNext, id + 1) }
            state.apply(item)
            history.append(item)
            var full: [Int] = []
            for (id, c) in clients where item.matches(c.topics) {
                if c.outbox.offer(.event(item)) == .full { full.append(id) }
            }
            return full.compactMap { clients.removeValue(forKey: $0) }
        }
        // The event that did not fit is lost to each of them too.
        cutOff(cut, alsoLost: 1)
    }

    /// Where the journal tail continues from (`add` moves it past each journaled event).
    public func setJournalNext(_ next: UInt64) { lock.withLock { journalNext = max(journalNext, next) } }

    /// A keep-alive for every client with nothing waiting (SSE streams write a comment line).
    public func keepalive() {
        lock.withLock { for (_, c) in clients { c.outbox.offerKeepalive() } }
    }

    /// Registers a client, or nil when `maxClients` are connected (counted). `close` closes
    /// its connection: the feed calls it when the client is cut off or the feed finishes.
    public func subscribe(topics: [String]?, withHistory: Bool, close: @escaping @Sendable () -> Void = {}) -> Subscription? {
        let outbox = ClientOutbox(maxEvents: queueLimit, maxBytes: bufferLimit)
        let result: Subscription? = lock.withLock {
            guard clients.count < maxClients else { return nil }
            let id = nextClientID
            nextClientID += 1
            clients[id] = Client(outbox: outbox, topics: topics, close: close)
            return Subscription(id: id, outbox: outbox, journalNext: journalNext, history: withHistory ? history.snapshot() : nil)
        }
        counters.update {
            if result == nil { $0.clientsRefused += 1 } else { $0.clientsOpened += 1; $0.clientsOpen += 1 }
        }
        return result
    }

    /// Queues a message for one client (cut off if that takes it past its bounds).
    public func reply(_ id: Int, _ json: [UInt8]) {
        let cut: Client? = lock.withLock {
            guard let c = clients[id], c.outbox.offer(.reply(json)) == .full else { return nil }
            return clients.removeValue(forKey: id)
        }
        cutOff(cut.map { [$0] } ?? [], alsoLost: 0)
    }

    /// Changes a client's topics (WebSocket subscribe/unsubscribe).
    public func setTopics(_ id: Int, _ topics: [String]?) { lock.withLock { clients[id]?.topics = topics } }

    /// The client's stream ended (its writer returned): idempotent.
    public func unsubscribe(_ id: Int) {
        let c = lock.withLock { clients.removeValue(forKey: id) }
        guard let c else { return }
        counters.update { $0.clientsOpen -= 1 }
        c.outbox.finish()
    }

    /// Ends every client's stream and closes its connection (the sink is stopping: a client
    /// that is not reading would otherwise hold the server's shutdown until write_timeout).
    public func finishAll() {
        let all = lock.withLock { () -> [Client] in
            let a = Array(clients.values)
            clients.removeAll()
            return a
        }
        counters.update { $0.clientsOpen -= all.count }
        for c in all {
            c.outbox.finish()
            c.close()
        }
    }

    /// Clients past their bounds, already out of `clients`: their outboxes end, their
    /// connections close, and what they were waiting for is counted as lost.
    private func cutOff(_ cut: [Client], alsoLost: Int) {
        guard !cut.isEmpty else { return }
        var lost = 0
        for c in cut { lost += c.outbox.finish() + alsoLost }
        counters.update {
            $0.clientsCutOff += cut.count
            $0.clientsOpen -= cut.count
            $0.droppedSlowClient += lost
        }
        for c in cut { c.close() }
    }

    /// `GET /state`.
    public func stateJSON() -> [UInt8] { lock.withLock { state.json() } }

    /// `GET /regions.geojson`.
    public func regionsGeoJSON() -> [UInt8] { lock.withLock { state.geoJSON() } }
}
