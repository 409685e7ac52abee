import Foundation

/// A flag one thread sets and a worker loop reads between polls (at most every 100 ms, so a
/// lock costs nothing measurable).
public final class StopFlag: @unchecked Sendable {
    /// Guards `value`.
    private let lock = NSLock()
    private var value = false

    public init() {}

    public func set() {
        lock.lock()
        value = true
        lock.unlock()
    }

    public var isSet: Bool {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
