import Foundation
import LocusCore
import Logging

/// Runs a plugin in memory, the way plugin tests (ours and yours) do: a `PluginContext` whose
/// publisher records what is published, through the real envelope codec, and a log of the
/// statuses the plugin reports. No sockets, no hub.
///
/// ```swift
/// let harness = PluginHarness(id: "gps0")
/// try await mySource.run(context: harness.context)
/// let fixes = try harness.fixes()
/// ```
public struct PluginHarness: Sendable {
    public let outlet = MemoryOutlet()
    public let statuses = StatusLog()
    public let context: PluginContext
    public let registry: PayloadRegistry
    private let collected = CollectedMessages()

    public init(id: String = "test", registry: PayloadRegistry = .core) {
        let statuses = self.statuses
        self.registry = registry
        context = PluginContext(id: id, logger: Logger(label: "locus.test.\(id)"),
                                publisher: EventPublisher(producer: id, outlet: outlet)) { state, reason in
            statuses.append(state, reason)
        }
    }

    /// Everything published so far, decoded, in order (kept across calls).
    public func messages() throws -> [BusMessage] {
        let new = try outlet.take().map {
            BusMessage(topic: $0.topic, envelope: try EnvelopeCodec.decode($0.body, registry: registry), body: $0.body)
        }
        return collected.append(new)
    }

    /// The fixes published on `obs.fix.<id>`, with their event times.
    public func fixes() throws -> [(fix: Fix, time: EventTime)] {
        try messages().compactMap { m in
            guard m.topic == "obs.fix.\(context.id)", let f = m.payload(Fix.self) else { return nil }
            return (f, m.envelope.time)
        }
    }

    /// The sky views published on `obs.sky.<id>`, with their event times.
    public func skyViews() throws -> [(sky: SkyView, time: EventTime)] {
        try messages().compactMap { m in
            guard m.topic == "obs.sky.\(context.id)", let s = m.payload(SkyView.self) else { return nil }
            return (s, m.envelope.time)
        }
    }
}

final class CollectedMessages: @unchecked Sendable {
    /// Guards `all`.
    private let lock = NSLock()
    private var all: [BusMessage] = []

    func append(_ m: [BusMessage]) -> [BusMessage] {
        lock.withLock {
            all += m
            return all
        }
    }
}

/// The statuses a plugin reported through `PluginContext.reportStatus`, with when.
public final class StatusLog: @unchecked Sendable {
    /// Guards `entries`.
    private let lock = NSLock()
    private var entries: [(state: PluginStatus.State, reason: String?, at: ContinuousClock.Instant)] = []

    public init() {}

    public func append(_ state: PluginStatus.State, _ reason: String?) {
        lock.withLock { entries.append((state, reason, .now)) }
    }

    public var states: [PluginStatus.State] { lock.withLock { entries.map(\.state) } }
    public var all: [(PluginStatus.State, String?)] { lock.withLock { entries.map { ($0.state, $0.reason) } } }

    /// When the `index`th status was reported.
    public func time(_ index: Int) -> ContinuousClock.Instant? {
        lock.withLock { index < entries.count ? entries[index].at : nil }
    }
}

/// Polls `condition` every 20 ms until it holds or `timeout` seconds pass (sleeping, so the
/// cooperative pool stays free for the code under test).
@discardableResult
public func waitUntil(timeout: Double, _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now.advanced(by: .milliseconds(Int64(timeout * 1000)))
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(nanoseconds: 20_000_000)
    }
    return try condition()
}
