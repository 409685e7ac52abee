import Foundation
import LocusCore

/// The hand-over between a subscription's socket thread and the one task that consumes it: a
/// FIFO under one lock, pushed a burst at a time and taken whole, as `OutletQueue` does on the
/// publishing side. The lock and the wake-up of a waiting task are paid once per batch; an
/// `AsyncStream` pays both for every message, which on a busy daemon was a large share of its
/// CPU (thread switches and unspecialised generic code).
///
/// Bounded: while `limit` messages wait untaken, what is pushed is refused, and the pusher
/// counts it as dropped (the newest are dropped, as `AsyncStream.bufferingOldest` does).
/// One consumer: call `take` from one task at a time, or iterate `stream()` once.
public final class FeedQueue: @unchecked Sendable {
    /// Messages that may wait untaken.
    public let limit: Int
    /// Guards `items`, `waiter`, `finished`, `terminated` and `woken`.
    private let lock = NSLock()
    private var items: [BusMessage] = []
    private var waiter: CheckedContinuation<Void, Never>?
    /// No more pushes: `take` returns what is left, then nil.
    private var finished = false
    /// The consumer is gone: pushes are refused and `take` returns nil.
    private var terminated = false
    /// `wake` was called since the last `take`.
    private var woken = false

    public init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Appends `batch`'s messages in order and empties it. Returns how many were refused for
    /// want of room (the last ones), or nil once the consumer is gone or the queue finished.
    public func push(_ batch: inout [BusMessage]) -> Int? {
        lock.lock()
        if terminated || finished {
            lock.unlock()
            batch.removeAll(keepingCapacity: true)
            return nil
        }
        let room = limit - items.count
        let refused = max(0, batch.count - room)
        if refused == 0 && items.isEmpty {
            swap(&items, &batch)
        } else {
            items.append(contentsOf: batch.prefix(max(0, room)))
            batch.removeAll(keepingCapacity: true)
        }
        let w = waiter
        waiter = nil
        lock.unlock()
        w?.resume()
        return refused
    }

    /// Everything pushed and not yet taken, in order, waiting while there is nothing. Returns
    /// an empty array after `wake`, and nil once the queue is finished and empty, or when the
    /// calling task is cancelled (which also ends the queue: later pushes are refused).
    public func take() async -> [BusMessage]? {
        while true {
            switch poll() {
            case .taken(let batch): return batch
            case .ended: return nil
            case .empty: break
            }
            if Task.isCancelled {
                terminate()
                return nil
            }
            await withTaskCancellationHandler {
                await withCheckedContinuation { (c: CheckedContinuation<Void, Never>) in
                    // Checked under the lock `push`, `wake` and the cancellation take: whatever
                    // came before is seen here, whatever comes after finds the waiter stored.
                    let now = lock.withLock {
                        if !items.isEmpty || woken || finished || terminated || Task.isCancelled { return true }
                        waiter = c
                        return false
                    }
                    if now { c.resume() }
                }
            } onCancel: {
                resumeWaiter()
            }
        }
    }

    private enum Poll {
        case taken([BusMessage])
        case ended
        case empty
    }

    private func poll() -> Poll {
        lock.withLock {
            if !items.isEmpty || woken {
                woken = false
                var out: [BusMessage] = []
                swap(&out, &items)
                return .taken(out)
            }
            return finished || terminated ? .ended : .empty
        }
    }

    /// Makes the consumer's pending or next `take` return (with an empty array if nothing
    /// came), so it can look at something else (a control command). Any thread.
    public func wake() { changeAndResume { woken = true } }

    /// No more messages will come: the consumer takes what is left, then gets nil.
    public func finish() { changeAndResume { finished = true } }

    /// The consumer is gone: drops what waits and refuses every later push.
    public func terminate() {
        changeAndResume {
            terminated = true
            items = []
        }
    }

    private func resumeWaiter() { changeAndResume {} }

    /// Applies `change` under the lock, then resumes the waiting consumer, if any.
    private func changeAndResume(_ change: () -> Void) {
        let w: CheckedContinuation<Void, Never>? = lock.withLock {
            change()
            defer { waiter = nil }
            return waiter
        }
        w?.resume()
    }

    /// The queue's messages one at a time, for consumers that want a stream (sinks). Iterate
    /// it once; cancelling the iterating task ends the queue, as it ends an `AsyncStream`.
    /// `done`, if given, gets each message once the consumer asks for the next one (a consumer
    /// handling one message at a time is then done with it).
    public func stream(done: (@Sendable (BusMessage) -> Void)? = nil) -> AsyncStream<BusMessage> {
        let cursor = FeedCursor(self)
        return AsyncStream(unfolding: {
            if let done, let previous = cursor.previous { done(previous) }
            return await cursor.next()
        }, onCancel: { [weak self] in self?.terminate() })
    }
}

/// One consumer's position in a `FeedQueue`: the batch it took last and how far it has got.
/// Not locked: used by one consuming task at a time (`stream()` iterates it once), like the queue's `take`.
public final class FeedCursor: @unchecked Sendable {
    private let queue: FeedQueue
    private var batch: [BusMessage] = []
    private var index = 0

    public init(_ queue: FeedQueue) { self.queue = queue }

    /// The message `next` returned last (nil before the first and after the end).
    public var previous: BusMessage? { index > 0 && index <= batch.count ? batch[index - 1] : nil }

    /// The next message, or nil once the queue has ended. One task at a time.
    public func next() async -> BusMessage? {
        while index == batch.count {
            guard let taken = await queue.take() else {
                batch = []
                index = 0
                return nil
            }
            batch = taken
            index = 0
        }
        defer { index += 1 }
        return batch[index]
    }
}
