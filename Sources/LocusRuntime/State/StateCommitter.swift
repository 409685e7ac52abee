import Foundation

/// Runs a state keeper's commits on a thread of its own, in the order they were handed over, so
/// that a service processes its next batch while the last one is written (`ServiceStateKeeper`):
/// on a fleet server the SQLite transaction was a sixth of the service task's time, and the
/// service task is what sets the latency.
///
/// At most one commit waits while another runs: `submit` blocks until there is room, so the
/// memory held is bounded and a slow disk slows the service instead of growing a queue. After a
/// job fails, the jobs behind it are dropped (they build on what did not commit), and `submit`
/// and `drain` throw the failure until `reset`.
final class StateCommitter: @unchecked Sendable {
    /// Guards `queued`, `running`, `failure`, `closed` and `thread`.
    private let condition = NSCondition()
    private var queued: (() throws -> Void)?
    private var running = false
    private var failure: (any Error)?
    private var closed = false
    private var thread: Thread?
    private let name: String

    init(name: String) { self.name = name }

    /// Hands `job` over; blocks while another job is queued. Throws an earlier job's failure
    /// (then `job` is not run).
    func submit(_ job: @escaping () throws -> Void) throws {
        condition.lock()
        defer { condition.unlock() }
        startIfNeeded()
        while queued != nil && failure == nil { condition.wait() }
        if let failure { throw failure }
        queued = job
        condition.broadcast()
    }

    /// Waits until every job handed over has run; throws the first failure.
    func drain() throws {
        condition.lock()
        defer { condition.unlock() }
        while (queued != nil || running) && failure == nil { condition.wait() }
        while running { condition.wait() }
        if let failure { throw failure }
    }

    /// Forgets a failure (the keeper restarts from the last commit). Call after `drain`.
    func reset() {
        condition.lock()
        failure = nil
        queued = nil
        condition.unlock()
    }

    /// Lets the thread end once the jobs handed over have run (the runner's service loop
    /// ended); a later `submit` starts another.
    func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    private func startIfNeeded() {
        guard thread == nil else { return }
        closed = false
        let t = Thread { self.runJobs() }
        t.name = name
        thread = t
        t.start()
    }

    private func runJobs() {
        condition.lock()
        while true {
            while queued == nil && !closed { condition.wait() }
            guard let job = queued else { break }
            queued = nil
            running = true
            condition.broadcast()
            condition.unlock()
            var thrown: (any Error)?
            do { try job() } catch { thrown = error }
            condition.lock()
            running = false
            if let thrown, failure == nil { failure = thrown }
            if failure != nil { queued = nil }
            condition.broadcast()
        }
        thread = nil
        condition.unlock()
    }
}
