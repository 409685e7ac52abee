import Foundation
import LocusCore

/// What one plugin has published, for `status` and metrics: messages per topic family, and
/// when (wall clock) it last published a fix — the age of the last fix is what an operator
/// watches on a receiver. Passes every message on to the delivery gate.
final class PublishTally: PublishObserver, @unchecked Sendable {
    private let gate: DeliveryGate?
    /// Guards `published`, `fixes` and `lastFix`.
    private let lock = NSLock()
    private var published: UInt64 = 0
    private var fixes: UInt64 = 0
    private var lastFix: ContinuousClock.Instant?

    init(gate: DeliveryGate?) { self.gate = gate }

    func published(producer: String, topic: String, seq: UInt64) {
        gate?.published(producer: producer, topic: topic, seq: seq)
        let isFix = topic.hasPrefix("obs.fix.")
        let now: ContinuousClock.Instant? = isFix ? .now : nil
        lock.withLock {
            published &+= 1
            if let now {
                fixes &+= 1
                lastFix = now
            }
        }
    }

    struct Snapshot: Sendable {
        var published: UInt64
        var fixes: UInt64
        /// Seconds since the last `obs.fix.*` message; nil if none yet.
        var lastFixAge: Double?
    }

    var snapshot: Snapshot {
        lock.withLock {
            let age = lastFix.map { i -> Double in
                let d = i.duration(to: .now)
                return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
            }
            return Snapshot(published: published, fixes: fixes, lastFixAge: age)
        }
    }
}
