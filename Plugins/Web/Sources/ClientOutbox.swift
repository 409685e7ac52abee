import Foundation

/// What waits to be written to one event-stream client (SSE or WebSocket), bounded in events
/// (`client_queue`) and in bytes (`client_buffer`, counting each event as it goes on the wire
/// and the batch being written). `EventFeed` offers deliveries from the sink's task; the
/// client's writer takes them in batches of at most `batchBytes`. A client that falls past
/// either bound is refused more (`offer` says `.full`) and cut off by the feed: nothing more
/// is queued for it, and its writer's `next` returns nil.
///
/// Why bytes and a cut-off rather than dropping the oldest: a client that does not read would
/// otherwise hold the gateway's memory or silently lose events in the middle of its stream;
/// cut off, an SSE client reconnects with Last-Event-ID and reads what it missed from the
/// journal. Used from several tasks; the lock guards every `var`.
public final class ClientOutbox: @unchecked Sendable {
    public enum Offer: Equatable { case queued, full, closed }

    /// The most one batch takes: the writer hands a batch to NIO in one write.
    static let batchBytes = 16 * 1024

    let maxEvents: Int
    let maxBytes: Int
    /// Guards `queue`, `head`, `queuedBytes`, `takenBytes`, `finished` and `waiter`.
    private let lock = NSLock()
    private var queue: [EventFeed.Delivery] = []
    private var head = 0
    private var queuedBytes = 0
    /// Bytes of the batch `next` handed out, until the writer says it is `written`.
    private var takenBytes = 0
    private var finished = false
    private var waiter: CheckedContinuation<[EventFeed.Delivery]?, Never>?

    init(maxEvents: Int, maxBytes: Int) {
        self.maxEvents = maxEvents
        self.maxBytes = maxBytes
    }

    /// Queues `delivery`; `.full` (nothing queued) when that would take the client past a
    /// bound (a delivery larger than `maxBytes` passes when nothing else waits).
    func offer(_ delivery: EventFeed.Delivery) -> Offer {
        let bytes = Self.bytes(of: delivery)
        let (result, wake) = lock.withLock { () -> (Offer, (CheckedContinuation<[EventFeed.Delivery]?, Never>, [EventFeed.Delivery])?) in
            guard !finished else { return (.closed, nil) }
            let waiting = queuedBytes + takenBytes
            // One event larger than the whole bound (the hub allows 256 KiB) still goes to a
            // client with nothing waiting.
            if queue.count - head >= maxEvents || (waiting > 0 && waiting + bytes > maxBytes) { return (.full, nil) }
            queue.append(delivery)
            queuedBytes += bytes
            guard let w = waiter else { return (.queued, nil) }
            waiter = nil
            return (.queued, (w, takeBatch()))
        }
        if let (w, batch) = wake { w.resume(returning: batch) }
        return result
    }

    /// A keep-alive, only when nothing waits (one behind queued events says nothing new).
    func offerKeepalive() {
        let wake = lock.withLock { () -> CheckedContinuation<[EventFeed.Delivery]?, Never>? in
            guard !finished, queue.count == head, takenBytes == 0, let w = waiter else { return nil }
            waiter = nil
            takenBytes = Self.keepaliveBytes
            return w
        }
        wake?.resume(returning: [.keepalive])
    }

    static let keepaliveBytes = 14

    /// The next batch, oldest first, once there is one; nil once the outbox is finished (or
    /// the waiting task is cancelled, which finishes it). One reader at a time.
    public func next() async -> [EventFeed.Delivery]? {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (c: CheckedContinuation<[EventFeed.Delivery]?, Never>) in
                let ready: [EventFeed.Delivery]?? = lock.withLock {
                    if queue.count > head { return .some(takeBatch()) }
                    if finished { return .some(nil) }
                    waiter = c
                    return nil
                }
                if let ready { c.resume(returning: ready) }
            }
        } onCancel: {
            _ = finish()
        }
    }

    /// The batch `next` returned has been written (its bytes no longer count).
    public func written() {
        lock.withLock { takenBytes = 0 }
    }

    /// Ends the outbox: `next` returns nil from now on. Returns how many events were still
    /// queued (they will not be written).
    @discardableResult
    func finish() -> Int {
        let (lost, wake) = lock.withLock { () -> (Int, CheckedContinuation<[EventFeed.Delivery]?, Never>?) in
            guard !finished else { return (0, nil) }
            finished = true
            let lost = queue[head...].reduce(0) { n, d in if case .event = d { return n + 1 } else { return n } }
            queue = []
            head = 0
            queuedBytes = 0
            defer { waiter = nil }
            return (lost, waiter)
        }
        wake?.resume(returning: nil)
        return lost
    }

    /// Under the lock: up to `batchBytes` from the head of the queue (at least one delivery).
    private func takeBatch() -> [EventFeed.Delivery] {
        var bytes = 0
        var end = head
        while end < queue.count {
            let b = Self.bytes(of: queue[end])
            if end > head, bytes + b > Self.batchBytes { break }
            bytes += b
            end += 1
        }
        let batch = Array(queue[head..<end])
        head = end
        if head == queue.count {
            // A client that once had many waiting does not keep their room.
            queue.removeAll(keepingCapacity: queue.count <= 64)
            head = 0
        } else if head > 1024, head * 2 > queue.count {
            queue.removeFirst(head)
            head = 0
        }
        queuedBytes -= bytes
        takenBytes = bytes
        return batch
    }

    /// What `delivery` takes on the wire (an SSE frame; a WebSocket message takes a little less).
    static func bytes(of delivery: EventFeed.Delivery) -> Int {
        switch delivery {
        case .event(let item): return item.frameBytes
        case .keepalive: return keepaliveBytes
        case .reply(let json): return json.count + 8
        }
    }
}
