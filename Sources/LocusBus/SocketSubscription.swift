import Foundation
import LocusCore
import Logging

/// The in-process subscriber: a SUB socket on its own thread that decodes what it receives and
/// delivers it through a `FeedQueue`, in batches (`queue`) or one at a time (`messages`).
///
/// Create it, `start(hub:)` it, consume `messages` from any task, `stop(drain:)` it. With a hub
/// given, `start` returns only once the hub has all subscriptions, so nothing published after
/// that is missed.
/// Immutable after init: every stored property is a `let` of a thread-safe type.
public final class SocketSubscription: @unchecked Sendable {
    public let endpoint: String
    public let prefixes: [String]
    /// The sync token this subscription subscribes to last (see `SyncToken`).
    public let syncToken: String
    /// Decoded messages in arrival order, in batches; ends after `stop`. Consume either this
    /// or `messages`, not both.
    public let queue: FeedQueue
    /// The same messages one at a time; finishes after `stop`.
    public let messages: AsyncStream<BusMessage>

    private let context: ZMQContext
    private let registry: PayloadRegistry
    private let logger: Logger
    private let highWaterMark: Int
    private let control = SubscriptionControl()
    private let counters = SubscriptionCounters()
    private let worker = SocketWorker(thread: "locus-subscription", for: "the subscription")

    /// - Parameters:
    ///   - prefixes: topic prefixes to receive (`""` = everything); each must pass `Topic.isValidPrefix`.
    ///   - highWaterMark: ZeroMQ receive queue limit; 0 = unlimited.
    ///   - bufferLimit: messages the queue holds for a slow consumer before dropping new ones.
    public init(context: ZMQContext, endpoint: String = HubConfiguration.inprocPublish, prefixes: [String],
                registry: PayloadRegistry, logger: Logger, highWaterMark: Int = 100_000, bufferLimit: Int = 100_000) {
        self.context = context
        self.endpoint = endpoint
        self.prefixes = prefixes
        self.registry = registry
        self.logger = logger
        self.highWaterMark = highWaterMark
        syncToken = SyncToken.make()
        queue = FeedQueue(limit: bufferLimit)
        messages = queue.stream()
    }

    deinit { stop(drain: false) }

    /// Starts the receiving thread: connects, subscribes to `prefixes` and then to `syncToken`.
    /// If `hub` is given, blocks until the hub has seen the token (up to `timeout` seconds).
    /// Call once, from any thread except the hub's.
    /// - Throws: `LocusBusError` for an invalid prefix or when the hub did not see the
    ///   subscription in time; `EndpointError`/`ZMQError` if the socket cannot be set up.
    public func start(hub: Hub?, timeout: Double = 5) throws {
        for p in prefixes where !Topic.isValidPrefix(p) {
            throw LocusBusError("'\(p)' is not a valid topic prefix")
        }
        _ = try Endpoint.validate(endpoint)
        let receiver = SubscriptionReceiver(context: context, endpoint: endpoint, prefixes: prefixes, syncToken: syncToken,
                                            highWaterMark: highWaterMark, registry: registry, logger: logger,
                                            queue: queue, control: control, counters: counters)
        try worker.start { startup in receiver.run(startup: startup) }
        if let hub, !hub.waitForSubscriber(token: syncToken, timeout: timeout) {
            worker.stop { control.request(.stopNow) }
            throw LocusBusError("the hub did not see the subscription at \(endpoint) within \(timeout) s")
        }
    }

    /// Stops receiving and finishes `messages`. With `drain`, first keeps receiving until
    /// nothing arrived for ~100 ms (at most 10 s), so messages already on their way are
    /// delivered. Blocks until the thread has ended. Idempotent; any thread.
    public func stop(drain: Bool) {
        // The receiving thread finishes `messages` as it ends; without one, finish it here.
        if !worker.stop(wake: { control.request(drain ? .drain : .stopNow) }) { queue.finish() }
    }

    /// Thread-safe snapshot of what was delivered and skipped.
    public var statistics: SubscriptionStatistics { counters.snapshot }
}

/// What the owner asks of the receiving thread.
final class SubscriptionControl: @unchecked Sendable {
    enum Mode { case run, drain, stopNow }
    /// Guards `value`.
    private let lock = NSLock()
    private var value = Mode.run

    func request(_ mode: Mode) {
        lock.lock()
        if value != .stopNow { value = mode }
        lock.unlock()
    }

    var mode: Mode {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}

final class SubscriptionCounters: @unchecked Sendable {
    /// Guards `value`.
    private let lock = NSLock()
    private var value = SubscriptionStatistics()

    func add(delivered: UInt64, undecodable: UInt64, dropped: UInt64) {
        lock.lock()
        value.delivered &+= delivered
        value.undecodable &+= undecodable
        value.droppedSlowConsumer &+= dropped
        lock.unlock()
    }

    var snapshot: SubscriptionStatistics {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
