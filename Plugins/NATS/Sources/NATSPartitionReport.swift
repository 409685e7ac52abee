import Foundation

/// The partitions a `nats` source in a group holds, for `locus ctl status` and metrics: per
/// partition n, `partition_<n>_epoch` (the epoch of this server's lease) and
/// `partition_<n>_pending` (messages of it not yet read, as of the last round). A partition
/// given up leaves the report.
final class NATSPartitionReport: @unchecked Sendable {
    private let lock = NSLock()
    private var held: [Int: (epoch: UInt64, pending: UInt64)] = [:]

    func set(_ partitions: [Int: (epoch: UInt64, pending: UInt64)]) { lock.withLock { held = partitions } }

    var counters: [String: UInt64] {
        lock.withLock {
            var out: [String: UInt64] = [:]
            for (p, h) in held {
                out["partition_\(p)_epoch"] = h.epoch
                out["partition_\(p)_pending"] = h.pending
            }
            return out
        }
    }
}
