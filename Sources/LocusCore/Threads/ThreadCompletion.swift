import Foundation

/// The end of a plugin's own thread (`startThread`), awaited by the plugin's task.
public final class ThreadCompletion: @unchecked Sendable {
    /// Guards `result` and `waiter`.
    private let lock = NSLock()
    private var result: Result<Void, Error>?
    private var waiter: CheckedContinuation<Void, Error>?

    public init() {}

    public var hasFinished: Bool { lock.withLock { result != nil } }

    public func finish(_ error: Error?) {
        let r: Result<Void, Error> = error.map { .failure($0) } ?? .success(())
        let w: CheckedContinuation<Void, Error>? = lock.withLock {
            result = r
            defer { waiter = nil }
            return waiter
        }
        w?.resume(with: r)
    }

    public func wait() async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
            let r: Result<Void, Error>? = lock.withLock {
                if result == nil { waiter = c }
                return result
            }
            if let r { c.resume(with: r) }
        }
    }
}

/// Set once by a plugin's task (cancelled), read by the plugin's own thread.
public final class StopSignal: @unchecked Sendable {
    /// Guards `value`.
    private let lock = NSLock()
    private var value = false
    public init() {}
    public func set() { lock.withLock { value = true } }
    public var isSet: Bool { lock.withLock { value } }
}
