import Foundation

/// Sync tokens the hub has seen subscribed, and waiting for one to show up.
final class SyncTokenBook: @unchecked Sendable {
    /// Guards `seen`.
    private let condition = NSCondition()
    private var seen: Set<String> = []
    /// Tokens nobody waited for would otherwise pile up in a long-running hub.
    private let capacity = 4096

    /// Hub thread: a subscription to `token` arrived.
    func record(_ token: String) {
        condition.lock()
        if seen.count >= capacity, let any = seen.first { seen.remove(any) }
        seen.insert(token)
        condition.broadcast()
        condition.unlock()
    }

    /// Any thread: blocks until `token` was recorded or `timeout` seconds passed. A token is
    /// consumed by the wait that sees it.
    func wait(for token: String, timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: max(0, timeout))
        condition.lock()
        defer { condition.unlock() }
        while !seen.contains(token) {
            if !condition.wait(until: deadline) { break }
        }
        return seen.remove(token) != nil
    }
}
