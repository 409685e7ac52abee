import Foundation

/// Between the sink's task and its forwarder thread: live messages of topics the journal does
/// not take (bounded; the overflow is counted by the caller), wake-ups for journal records
/// just written, and the end of the stream.
final class ForwarderInbox: @unchecked Sendable {
    struct Live {
        var topic: String
        var body: [UInt8]
    }

    private let condition = NSCondition()
    private var live: [Live] = []
    private var liveHead = 0
    private var woken = false
    private var ended = false
    let limit: Int

    init(limit: Int) { self.limit = limit }

    /// Queues a live message. - Returns: false if the queue is full (the message is dropped).
    func push(_ message: Live) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard live.count - liveHead < limit else { return false }
        live.append(message)
        woken = true
        condition.signal()
        return true
    }

    /// The journal has new records.
    func wake() {
        condition.lock()
        woken = true
        condition.signal()
        condition.unlock()
    }

    /// No more messages will come (shutdown).
    func end() {
        condition.lock()
        ended = true
        condition.signal()
        condition.unlock()
    }

    var hasEnded: Bool { condition.withLock { ended } }

    /// Waits until woken or `seconds` have passed. - Returns: true if woken (and clears it).
    @discardableResult
    func wait(seconds: Double) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        if !woken && !ended { _ = condition.wait(until: Date(timeIntervalSinceNow: seconds)) }
        let was = woken
        woken = false
        return was
    }

    /// Takes whether a wake-up came since the last call, without waiting.
    func takeWake() -> Bool {
        condition.withLock {
            defer { woken = false }
            return woken
        }
    }

    /// The oldest queued live message, removed.
    func popLive() -> Live? {
        condition.withLock {
            guard liveHead < live.count else { return nil }
            let m = live[liveHead]
            liveHead += 1
            if liveHead == live.count { live.removeAll(keepingCapacity: live.count <= 1024); liveHead = 0 }
            else if liveHead > 4096 { live.removeFirst(liveHead); liveHead = 0 }
            return m
        }
    }

    /// Puts back a message that could not be sent, at the front.
    func unpopLive(_ m: Live) {
        condition.withLock {
            if liveHead > 0 { liveHead -= 1; live[liveHead] = m } else { live.insert(m, at: 0) }
        }
    }

    var liveCount: Int { condition.withLock { live.count - liveHead } }
}
