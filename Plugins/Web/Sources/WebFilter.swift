import Foundation
import LocusCore

/// Which events the gateway serves and in what precision: its `topics` and `exclude`, and the
/// `precision` reduction, applied the same way to live events and to a resuming client's
/// backlog from the journal.
struct WebFilter: Sendable {
    let topics: [String]
    let exclude: [String]
    let reduction: PrecisionReduction?

    init(_ c: WebConfiguration) {
        topics = c.topics
        exclude = c.exclude
        reduction = c.precision > 0 ? PrecisionReduction(metres: c.precision) : nil
    }

    func takes(_ topic: String) -> Bool {
        !exclude.contains { topic.hasPrefix($0) } && topics.contains { topic.hasPrefix($0) }
    }

    /// The event as served, or nil when it cannot be reduced to the configured precision.
    func item(id: UInt64?, topic: String, body: [UInt8]) -> FeedItem? {
        guard let reduction else { return FeedItem(id: id, topic: topic, body: body) }
        guard let reduced = reduction.reduce(envelope: body) else { return nil }
        return FeedItem(id: id, topic: topic, body: reduced)
    }
}
