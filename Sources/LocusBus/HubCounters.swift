import Foundation

/// The hub's counters, written by the hub thread and read by anyone. The hub thread publishes
/// the forwarded count once per burst (not per message) and drops as they happen, so a reader
/// may see `forwarded` lag by one burst but never misses a drop that happened before a later
/// message was forwarded.
final class HubCounters: @unchecked Sendable {
    /// Guards `forwarded`, `subscriptions`, `subscribersCutOff` and `dropped`.
    private let lock = NSLock()
    private var forwarded: UInt64 = 0
    private var subscriptions = 0
    private var subscribersCutOff: UInt64 = 0
    private var dropped = [UInt64](repeating: 0, count: DropReason.allCases.count)

    func setForwarded(_ n: UInt64) {
        lock.lock()
        forwarded = n
        lock.unlock()
    }

    func setSubscriptions(_ n: Int) {
        lock.lock()
        subscriptions = n
        lock.unlock()
    }

    func addSubscriberCutOff() {
        lock.lock()
        subscribersCutOff += 1
        lock.unlock()
    }

    func addDrop(_ reason: DropReason) {
        lock.lock()
        dropped[reason.index] += 1
        lock.unlock()
    }

    var snapshot: HubStatistics {
        lock.lock()
        defer { lock.unlock() }
        var s = HubStatistics()
        s.forwarded = forwarded
        s.subscriptions = subscriptions
        s.subscribersCutOff = subscribersCutOff
        for reason in DropReason.allCases { s.dropped[reason.rawValue] = dropped[reason.index] }
        return s
    }
}
