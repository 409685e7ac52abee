import Foundation

/// Hands the outcome of a worker thread's setup (socket creation, bind, connect) back to the
/// thread that started it, so that setup errors are thrown synchronously by `start()`.
final class StartupResult: @unchecked Sendable {
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()
    private var error: Error?

    /// Called once by the worker: nil for success.
    func report(_ error: Error?) {
        lock.lock()
        self.error = error
        lock.unlock()
        done.signal()
    }

    /// Blocks until the worker reported; rethrows its error.
    func wait() throws {
        done.wait()
        lock.lock()
        defer { lock.unlock() }
        if let error { throw error }
    }
}
