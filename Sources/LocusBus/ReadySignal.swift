import Foundation

/// A one-shot "it happened" flag that other threads can wait for with a timeout.
final class ReadySignal: @unchecked Sendable {
    /// Guards `done`.
    private let condition = NSCondition()
    private var done = false

    func set() {
        condition.lock()
        done = true
        condition.broadcast()
        condition.unlock()
    }

    func wait(timeout: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: max(0, timeout))
        condition.lock()
        defer { condition.unlock() }
        while !done {
            if !condition.wait(until: deadline) { break }
        }
        return done
    }
}
