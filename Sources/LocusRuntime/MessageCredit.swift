import Foundation

/// Bounds how many bus messages may wait in a commandable service's input stream.
///
/// The stream that merges messages and commands is unbounded (a command must never be dropped),
/// so the task that moves messages into it takes one credit per message and the service's task
/// gives it back when it takes the message out. A slow service then leaves the backlog in its
/// subscription, whose buffer is bounded and counts what it drops, as for any other service.
/// One task acquires; any task releases.
final class MessageCredit: @unchecked Sendable {
    private let lock = NSLock()
    private var available: Int
    private var waiter: CheckedContinuation<Void, Never>?
    private var opened = false

    init(limit: Int) {
        available = limit
    }

    /// Takes one credit, waiting until one is free (or `open` was called).
    func acquire() async {
        if lock.withLock({ take() }) { return }
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let now = lock.withLock {
                    if take() { return true }
                    waiter = continuation
                    return false
                }
                if now { continuation.resume() }
            }
        } onCancel: {
            open()
        }
    }

    /// Gives one credit back.
    func release() {
        let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
            available += 1
            guard let w = self.waiter, take() else { return nil }
            self.waiter = nil
            return w
        }
        waiter?.resume()
    }

    /// Stops bounding: the waiting and every later `acquire` return at once. For the end of
    /// the stream, so the task moving messages is never left suspended.
    func open() {
        let waiter: CheckedContinuation<Void, Never>? = lock.withLock {
            opened = true
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume()
    }

    /// Under the lock.
    private func take() -> Bool {
        if opened { return true }
        guard available > 0 else { return false }
        available -= 1
        return true
    }
}
