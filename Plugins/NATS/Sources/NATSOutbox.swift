import Foundation

/// Between the `nats` sink's task and its thread: events waiting to be sent, bounded (the
/// overflow is refused and counted by the caller), and the end of the stream.
final class NATSOutbox: @unchecked Sendable {  // Everything below is guarded by `condition`.
    struct Item {
        var subject: String
        var messageId: String
        var body: [UInt8]
    }

    private let condition = NSCondition()
    private var items: [Item] = []
    private var head = 0
    private var ended = false
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// False when `limit` items are waiting.
    func push(_ item: Item) -> Bool {
        condition.withLock {
            guard items.count - head < limit else { return false }
            items.append(item)
            condition.signal()
            return true
        }
    }

    func end() { condition.withLock { ended = true; condition.signal() } }

    /// The oldest items, up to `max`, without taking them, waiting up to `timeout` seconds for
    /// the first; empty when none came (`ended` tells whether more can).
    func peek(max: Int, timeout: Double) -> [Item] {
        condition.withLock {
            if head == items.count, !ended { _ = condition.wait(until: Date().addingTimeInterval(timeout)) }
            return Array(items[head..<min(items.count, head + max)])
        }
    }

    /// Takes the first `count` items `peek` gave, once they are sent.
    func removeFirst(_ count: Int) {
        guard count > 0 else { return }
        condition.withLock {
            head += count
            // Give the memory back once the backlog is gone (a flood ends).
            if head == items.count { items = []; head = 0 } else if head > 4096, head * 2 > items.count { items.removeFirst(head); head = 0 }
        }
    }

    var hasEnded: Bool { condition.withLock { ended } }
    var waiting: Int { condition.withLock { items.count - head } }
}
