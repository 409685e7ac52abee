import Foundation

/// Hands the outcome of a worker thread's setup (socket creation, bind, connect) back to the
/// thread that started it, so that setup errors are thrown synchronously by `start()`.
public final class StartupResult: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    /// Guards `error` and `reported`.
    private let lock = NSLock()
    private var error: Error?
    private var reported = false

    init() {}

    /// Called by the worker: nil for success. Only the first report counts.
    public func report(_ error: Error?) {
        let first = lock.withLock {
            guard !reported else { return false }
            reported = true
            self.error = error
            return true
        }
        if first { done.signal() }
    }

    /// Blocks until the worker reported; rethrows its error.
    func wait() throws {
        done.wait()
        try lock.withLock {
            if let error { throw error }
        }
    }
}
