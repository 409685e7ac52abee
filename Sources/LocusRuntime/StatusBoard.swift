import Foundation
import LocusCore
import Logging

/// Publishes plugin state changes on `status.<id>` and remembers the latest per plugin for the
/// control socket's `status` command. Thread-safe.
public final class StatusBoard: @unchecked Sendable {
    /// The runtime's own publisher (producer `locus`), shared with `status.drops`.
    let publisher: EventPublisher
    private let logger: Logger
    /// Guards `latest` and `order`.
    private let lock = NSLock()
    private var latest: [String: PluginStatus] = [:]
    private var order: [String] = []
    /// Status events carry wall time: they describe the daemon, not the observed world.
    private let now: @Sendable () -> EventTime
    /// Whether the state stores and the journal can be written (`status.locus.state`).
    let stateStore: StateStoreHealth

    public init(publisher: EventPublisher, logger: Logger, now: @escaping @Sendable () -> EventTime = { EventTime.wallNow() }) {
        self.publisher = publisher
        self.logger = logger
        self.now = now
        self.stateStore = StateStoreHealth(publisher: publisher, logger: Logger(label: "locus.state"))
    }

    public func report(_ status: PluginStatus) {
        lock.lock()
        if latest[status.plugin] == nil { order.append(status.plugin) }
        latest[status.plugin] = status
        lock.unlock()
        var metadata: Logger.Metadata = ["plugin": "\(status.plugin)", "type": "\(status.pluginType)", "state": "\(status.state.rawValue)"]
        if let r = status.reason { metadata["reason"] = "\(r)" }
        if let d = status.retryIn { metadata["retry_in"] = "\(d)" }
        switch status.state {
        case .failed, .disconnected, .noData: logger.warning("plugin state", metadata: metadata)
        default: logger.info("plugin state", metadata: metadata)
        }
        publisher.publish(status, topic: "status.\(status.plugin)", time: now())
    }

    public var snapshot: [PluginStatus] {
        lock.lock()
        defer { lock.unlock() }
        return order.compactMap { latest[$0] }
    }
}

extension EventTime {
    /// The system clock. Only the runtime reads it (wall ticks, status events); services never do.
    public static func wallNow() -> EventTime {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        return EventTime(milliseconds: Int64(ts.tv_sec) * 1000 + Int64(ts.tv_nsec) / 1_000_000)
    }
}
