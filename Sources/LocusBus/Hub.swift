import Foundation
import LocusCore
import Logging

/// The message hub: every publisher sends to its XSUB (ingest), every subscriber reads from its
/// XPUB (publish). It checks each message (two frames, valid topic, size, envelope of a known
/// type), forwards valid ones unchanged and counts the others by `DropReason`.
///
/// `start()` and `stop()` may be called from any thread; the sockets live on the hub's own
/// thread. Bad input never stops the hub.
public final class Hub: @unchecked Sendable {
    public let configuration: HubConfiguration
    private let registry: PayloadRegistry
    private let context: ZMQContext
    private let logger: Logger
    private let journal: (any MessageJournal)?
    private let counters = HubCounters()
    private let tokens = SyncTokenBook()
    private let worker = SocketWorker(thread: "locus-hub", for: "the hub")
    /// Guards `bound`.
    private let lock = NSLock()
    private var bound: [String] = []

    /// `registry` lists the event types the hub accepts; `context` must be the one in-process
    /// publishers and subscribers use (inproc endpoints exist per context). With a `journal`,
    /// every accepted message it `takes` is appended and committed before it is forwarded.
    public init(configuration: HubConfiguration, registry: PayloadRegistry, context: ZMQContext, logger: Logger,
                journal: (any MessageJournal)? = nil) {
        self.journal = journal
        self.configuration = configuration
        self.registry = registry
        self.context = context
        self.logger = logger
    }

    deinit { stop() }

    /// Binds every endpoint, then forwards on a dedicated thread. Throws — before returning,
    /// with nothing left bound — an `EndpointError` for a malformed endpoint or a `ZMQError`
    /// naming the endpoint that could not be bound (e.g. another hub already runs there).
    /// Call once.
    public func start() throws {
        try configuration.validate()
        let boundBox = BoundEndpoints()
        let stopFlag = worker.stopFlag
        try worker.start { [configuration, registry, context, logger, counters, tokens, journal] startup in
            let forwarder: HubForwarder
            do {
                forwarder = try HubForwarder(configuration: configuration, registry: registry, context: context, logger: logger,
                                             counters: counters, tokens: tokens, stop: stopFlag, journal: journal)
            } catch {
                startup.report(error)
                return
            }
            do {
                try forwarder.bind()
            } catch {
                forwarder.close()
                startup.report(error)
                return
            }
            boundBox.set(forwarder.boundEndpoints)
            startup.report(nil)
            forwarder.run()
            forwarder.close()
        }
        let endpoints = boundBox.get()
        lock.withLock { bound = endpoints }
        logger.info("hub started", metadata: ["endpoints": "\(endpoints.joined(separator: " "))"])
    }

    /// Stops forwarding, joins the hub thread (within ~100 ms), closes the sockets and removes
    /// the ipc socket files the hub created. Idempotent; any thread except the hub's.
    public func stop() {
        guard worker.stop() else { return }
        logger.info("hub stopped", metadata: ["forwarded": "\(counters.snapshot.forwarded)"])
    }

    /// Thread-safe snapshot of the counters. `forwarded` is updated once per burst of
    /// messages, so it may trail by up to a burst while traffic flows.
    public var statistics: HubStatistics { counters.snapshot }

    /// Endpoints bound by `start()`, wildcards resolved (e.g. the port picked for `tcp://…:*`).
    public var boundEndpoints: [String] { lock.withLock { bound } }

    /// Blocks the calling thread until a subscriber's subscription to `token` (see `SyncToken`)
    /// reached the hub — then all that subscriber's earlier subscriptions are active — or until
    /// `timeout` seconds passed (returns false). Do not call from the hub thread.
    public func waitForSubscriber(token: String, timeout: Double) -> Bool {
        tokens.wait(for: token, timeout: timeout)
    }
}

/// Passes the bound endpoint list from the hub thread to `start()`.
private final class BoundEndpoints: @unchecked Sendable {
    /// Guards `value`.
    private let lock = NSLock()
    private var value: [String] = []
    func set(_ v: [String]) { lock.lock(); value = v; lock.unlock() }
    func get() -> [String] { lock.lock(); defer { lock.unlock() }; return value }
}
