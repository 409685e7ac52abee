import Foundation

/// The hand-over between `SocketOutlet.send` callers (any thread) and the outlet's socket
/// thread: a FIFO under one lock, taken by the socket thread a whole batch at a time so the
/// lock is paid once per batch on that side.
final class OutletQueue: @unchecked Sendable {
    typealias Item = (topic: String, body: [UInt8])

    /// Guards `items`, `consumerWaiting`, `producersWaiting`, `closed`, `drainDeadline` and `refused`.
    private let condition = NSCondition()
    private var items: [Item] = []
    private var consumerWaiting = false
    private var producersWaiting = 0
    private var closed = false
    private var drainDeadline = DispatchTime.distantFuture
    private var refused: UInt64 = 0
    /// Callers block in `push` while this many messages wait (backpressure instead of unbounded memory).
    let capacity: Int

    init(capacity: Int) {
        self.capacity = max(1, capacity)
        items.reserveCapacity(min(self.capacity, 4096))
    }

    /// Appends a message, blocking while the queue is full. Returns false (and counts it) if
    /// the outlet is closing.
    func push(topic: String, body: [UInt8]) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !closed {
            producersWaiting += 1
            condition.wait()
            producersWaiting -= 1
        }
        if closed {
            refused += 1
            return false
        }
        items.append((topic, body))
        // Producers wait only when the queue is full and the consumer only when it is empty,
        // so a signal here can only wake the consumer.
        if consumerWaiting { condition.signal() }
        return true
    }

    enum Take { case more, closedAndEmpty }

    /// Socket thread: moves everything queued into `batch` (which must be empty), waiting up to
    /// `timeout` seconds if nothing is queued.
    func take(into batch: inout [Item], timeout: Double) -> Take {
        condition.lock()
        defer { condition.unlock() }
        if items.isEmpty && !closed {
            consumerWaiting = true
            _ = condition.wait(until: Date(timeIntervalSinceNow: timeout))
            consumerWaiting = false
        }
        swap(&items, &batch)
        if producersWaiting > 0 { condition.broadcast() }
        return closed && batch.isEmpty ? .closedAndEmpty : .more
    }

    /// Refuses further messages; what is queued may still be sent until `deadline`.
    func close(drainDeadline: DispatchTime) {
        condition.lock()
        closed = true
        self.drainDeadline = drainDeadline
        condition.broadcast()
        condition.unlock()
    }

    var isClosed: Bool {
        condition.lock()
        defer { condition.unlock() }
        return closed
    }

    var deadline: DispatchTime {
        condition.lock()
        defer { condition.unlock() }
        return drainDeadline
    }

    /// Messages refused because the outlet was closing.
    var refusedCount: UInt64 {
        condition.lock()
        defer { condition.unlock() }
        return refused
    }
}
