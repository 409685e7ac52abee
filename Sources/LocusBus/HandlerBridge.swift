import Dispatch
import Foundation

/// Runs an async handler from a plain thread and waits for its result with a deadline, in
/// slices of at most 100 ms so the waiting thread can notice a stop request.
enum HandlerBridge {
    /// Returns the handler's result, or nil if `timeout` passed or `shouldStop` became true
    /// first (the task then finishes in the background and its result is discarded).
    static func call(_ handler: @escaping @Sendable ([UInt8]) async -> [UInt8], with request: [UInt8],
                     timeout: Double, shouldStop: () -> Bool) -> [UInt8]? {
        let slot = ResultSlot()
        let done = DispatchSemaphore(value: 0)
        Task {
            let reply = await handler(request)
            slot.set(reply)
            done.signal()
        }
        let deadline = DispatchTime.now() + timeout
        while true {
            let slice = min(DispatchTime.now() + 0.1, deadline)
            if done.wait(timeout: slice) == .success { return slot.get() }
            if DispatchTime.now() >= deadline || shouldStop() { return nil }
        }
    }
}

private final class ResultSlot: @unchecked Sendable {
    private let lock = NSLock()
    private var value: [UInt8]?
    func set(_ v: [UInt8]) { lock.lock(); value = v; lock.unlock() }
    func get() -> [UInt8]? { lock.lock(); defer { lock.unlock() }; return value }
}
