import Foundation
import LocusCore
import Logging

/// Back-pressure for sources that can wait (a `replay` of a file at any speed): such a source
/// calls `waitForConsumers()` before each message and is held while any in-process service or
/// sink is more than `window` sequence numbers behind an in-process producer on the topics it
/// subscribes to. Services and sinks are then never fed faster than they consume, so their
/// bounded buffers never overflow and nothing is dropped, whatever the file's size.
///
/// How it knows: every in-process publisher reports each message (`published`, as a
/// `PublishObserver`), and the runner reports each message its plugin has taken (`consumed`).
/// For each subscriber and producer the gate keeps the last sequence number published on a
/// matching topic and the last one consumed; their difference, in the producer's sequence
/// numbers, over-counts the backlog (other topics of the producer fall in between) and can
/// never be stuck by a lost message, since the next consumed message moves past it.
///
/// The wait is global: a slow consumer of any producer holds every waiting source, as the
/// output of a service fed by the file is itself a producer others consume. Live sources never
/// wait (they do not call it); what they send past a consumer's buffer is dropped and counted.
/// Producers outside the daemon (ingest, `exec`) are not tracked.
final class DeliveryGate: ConsumerPacing, PublishObserver, @unchecked Sendable {
    /// A subscriber this far behind (in sequence numbers of one producer) holds waiting sources;
    /// they go on once it is back within half of it. Far below the subscription buffers (100,000).
    let window: UInt64
    /// How long a source waits before it logs which consumer holds it (then again each period).
    let reportAfter: Double
    private let logger: Logger
    /// Guards `subscribers`, `nextID`, `matching`, `behind`, `waiters`, `nextWaiter` and `waits`,
    /// and every `Subscriber`'s `published` and `consumed`.
    private let lock = NSLock()
    private var subscribers: [Int: Subscriber] = [:]
    private var nextID = 0
    /// Subscribers whose prefixes match a topic, filled as topics are seen; cleared when the
    /// subscribers change.
    private var matching: [String: [Subscriber]] = [:]
    private var behind = Set<Lag>()
    private var waiters: [Int: CheckedContinuation<Void, Never>] = [:]
    private var nextWaiter = 0
    private var waits: UInt64 = 0

    init(window: UInt64 = 4096, reportAfter: Double = 10, logger: Logger) {
        self.window = max(2, window)
        self.reportAfter = reportAfter
        self.logger = logger
    }

    /// One subscription's position per producer.
    /// `published` and `consumed` are read and written only under the gate's `lock`.
    final class Subscriber: @unchecked Sendable {
        let id: Int
        let consumer: String
        let prefixes: [String]
        var published: [String: UInt64] = [:]
        var consumed: [String: UInt64] = [:]

        init(id: Int, consumer: String, prefixes: [String]) {
            self.id = id
            self.consumer = consumer
            self.prefixes = prefixes
        }

        func matches(_ topic: String) -> Bool { prefixes.contains { topic.hasPrefix($0) } }

        func lag(of producer: String) -> UInt64 {
            guard let p = published[producer] else { return 0 }
            let c = consumed[producer] ?? 0
            return p > c ? p - c : 0
        }
    }

    private struct Lag: Hashable {
        let subscriber: Int
        let producer: String
    }

    /// Starts following a subscription (`consumer` names it in logs). Returns its handle for
    /// `consumed` and `remove`.
    func add(consumer: String, prefixes: [String]) -> Subscriber {
        lock.withLock {
            nextID += 1
            let s = Subscriber(id: nextID, consumer: consumer, prefixes: prefixes)
            subscribers[s.id] = s
            matching.removeAll(keepingCapacity: true)
            return s
        }
    }

    /// Stops following a subscription (its feed ended): it holds nobody any more.
    func remove(_ subscriber: Subscriber) {
        let resume: [CheckedContinuation<Void, Never>] = lock.withLock {
            guard subscribers.removeValue(forKey: subscriber.id) != nil else { return [] }
            matching.removeAll(keepingCapacity: true)
            behind = behind.filter { $0.subscriber != subscriber.id }
            return takeWaitersIfClear()
        }
        for w in resume { w.resume() }
    }

    func published(producer: String, topic: String, seq: UInt64) {
        lock.lock()
        defer { lock.unlock() }
        let targets: [Subscriber]
        if let known = matching[topic] {
            targets = known
        } else {
            targets = subscribers.values.filter { $0.matches(topic) }
            matching[topic] = targets
        }
        for s in targets {
            s.published[producer] = seq
            if s.lag(of: producer) > window { behind.insert(Lag(subscriber: s.id, producer: producer)) }
        }
    }

    /// The plugin behind `subscriber` has taken (and handled) message `seq` of `producer`.
    func consumed(_ subscriber: Subscriber, producer: String, seq: UInt64) {
        lock.lock()
        guard subscriber.published[producer] != nil else {
            lock.unlock()
            return
        }
        subscriber.consumed[producer] = seq
        var resume: [CheckedContinuation<Void, Never>] = []
        if !behind.isEmpty, subscriber.lag(of: producer) <= window / 2,
           behind.remove(Lag(subscriber: subscriber.id, producer: producer)) != nil {
            resume = takeWaitersIfClear()
        }
        lock.unlock()
        for w in resume { w.resume() }
    }

    func waitForConsumers() async {
        if lock.withLock({ behind.isEmpty }) { return }
        let started = ContinuousClock.now
        var reported = 0
        while !Task.isCancelled {
            let clear = await waitOnce(timeout: reportAfter)
            if clear { return }
            reported += 1
            let holding = lock.withLock { describeBehind() }
            let waited = started.duration(to: .now).components.seconds
            logger.warning("a source reading a file has waited \(waited) s for consumers to catch up",
                           metadata: ["behind": "\(holding)"])
        }
    }

    /// Whether `subscriber` has taken every message of `producers` published so far on the
    /// topics it follows (for a device state exchange: the state then covers them).
    func hasConsumed(_ subscriber: Subscriber, everythingOf producers: Set<String>) -> Bool {
        lock.withLock {
            producers.allSatisfy { p in
                guard let published = subscriber.published[p] else { return true }
                return (subscriber.consumed[p] ?? 0) >= published
            }
        }
    }

    /// The largest lag of `subscriber` over the producers it is followed for.
    func largestLag(of subscriber: Subscriber) -> UInt64 {
        lock.withLock { subscriber.published.keys.map { subscriber.lag(of: $0) }.max() ?? 0 }
    }

    /// Sources that have had to wait, for `locus ctl status`.
    var waitCount: UInt64 { lock.withLock { waits } }

    /// True when nobody is behind any more; false after `timeout` seconds or on cancellation.
    private func waitOnce(timeout: Double) async -> Bool {
        let id: Int? = lock.withLock {
            if behind.isEmpty { return nil }
            nextWaiter += 1
            waits += 1
            return nextWaiter
        }
        guard let id else { return true }
        let timer = Task { [weak self] in
            try? await Task.sleep(nanoseconds: UInt64(timeout * 1e9))
            self?.release(waiter: id)
        }
        defer { timer.cancel() }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                let now = lock.withLock {
                    // Checked under the lock `release` takes: a cancellation that came before
                    // this is seen here, one after finds the continuation stored.
                    if behind.isEmpty || Task.isCancelled { return true }
                    waiters[id] = c
                    return false
                }
                if now { c.resume() }
            }
        } onCancel: {
            release(waiter: id)
        }
        return lock.withLock { behind.isEmpty }
    }

    private func release(waiter id: Int) {
        let w = lock.withLock { waiters.removeValue(forKey: id) }
        w?.resume()
    }

    /// Under the lock.
    private func takeWaitersIfClear() -> [CheckedContinuation<Void, Never>] {
        guard behind.isEmpty, !waiters.isEmpty else { return [] }
        defer { waiters.removeAll() }
        return Array(waiters.values)
    }

    /// Under the lock: "consumer (behind producer by N)" for the log.
    private func describeBehind() -> String {
        behind.compactMap { lag in
            subscribers[lag.subscriber].map { "\($0.consumer) behind \(lag.producer) by \($0.lag(of: lag.producer))" }
        }.sorted().joined(separator: ", ")
    }
}
