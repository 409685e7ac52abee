import Foundation

/// Between the sink's task and its forwarder thread: live messages of topics the journal does
/// not take (bounded; the overflow is counted by the caller), wake-ups for journal records
/// just written, and the end of the stream.
final class ForwarderInbox: @unchecked Sendable {
    struct Live {
        var topic: String
        var body: [UInt8]
    }

    /// Guards `live`, `liveHead`, `woken` and `ended`.
    private let condition = NSCondition()
    private var live: [Live] = []
    private var liveHead = 0
    private var woken = false
    private var ended = false
    let limit: Int
    /// Readable while a wake-up is pending (a pipe's read end, holding one byte then), so the
    /// forwarder's wait on the broker's socket ends at once
    /// (`MosquittoClient.loop(timeoutMs:wakeFD:)`); -1 if no pipe could be made.
    let wakeFD: Int32
    private let wakeWriteFD: Int32

    init(limit: Int) {
        self.limit = limit
        var fds: [Int32] = [-1, -1]
        if pipe(&fds) == 0 {
            for fd in fds {
                _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
                _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
            }
            (wakeFD, wakeWriteFD) = (fds[0], fds[1])
        } else {
            (wakeFD, wakeWriteFD) = (-1, -1)
        }
    }

    deinit {
        if wakeFD >= 0 { close(wakeFD); close(wakeWriteFD) }
    }

    /// Sets `woken`, signalling the fd on the change (under the lock).
    private func markWoken() {
        if !woken, wakeWriteFD >= 0 {
            var byte: UInt8 = 1
            _ = write(wakeWriteFD, &byte, 1)
        }
        woken = true
    }

    /// Clears `woken` and the fd (under the lock). - Returns: whether it was set.
    private func clearWoken() -> Bool {
        if woken, wakeFD >= 0 {
            var bytes: [UInt8] = [0, 0, 0, 0]
            while read(wakeFD, &bytes, bytes.count) > 0 {}
        }
        defer { woken = false }
        return woken
    }

    /// Queues a live message. - Returns: false if the queue is full (the message is dropped).
    func push(_ message: Live) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard live.count - liveHead < limit else { return false }
        live.append(message)
        markWoken()
        condition.signal()
        return true
    }

    /// The journal has new records.
    func wake() {
        condition.lock()
        markWoken()
        condition.signal()
        condition.unlock()
    }

    /// No more messages will come (shutdown).
    func end() {
        condition.lock()
        ended = true
        markWoken()
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
        return clearWoken()
    }

    /// Takes whether a wake-up came since the last call, without waiting.
    func takeWake() -> Bool {
        condition.withLock { clearWoken() }
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
