import Foundation
@testable import LocusRuntime
import Testing

/// The state keeper's committer thread: jobs run in order, at most one waits, a failure drops
/// what was handed over after it and is reported until reset, and a closed committer starts
/// again for the next job.
@Suite struct StateCommitterTests {
    struct Failed: Error, Equatable { var n: Int }

    final class Log: @unchecked Sendable {
        /// Guards `items`.
        private let lock = NSLock()
        private var items: [Int] = []
        func add(_ n: Int) { lock.withLock { items.append(n) } }
        var all: [Int] { lock.withLock { items } }
    }

    @Test func jobsRunInOrderOnTheirOwnThreadAndDrainWaitsForThem() throws {
        let committer = StateCommitter(name: "test-commit")
        let log = Log()
        let caller = Thread.current
        for n in 0..<200 {
            try committer.submit {
                precondition(Thread.current != caller)
                if n % 50 == 0 { usleep(2_000) }
                log.add(n)
            }
        }
        try committer.drain()
        #expect(log.all == Array(0..<200))
        committer.close()
    }

    /// `submit` returns only once the job before has started: a slow disk slows the caller, no
    /// queue grows.
    @Test func atMostOneJobWaits() throws {
        let committer = StateCommitter(name: "test-commit")
        let gate = DispatchSemaphore(value: 0)
        let log = Log()
        try committer.submit { gate.wait(); log.add(1) }  // runs, held
        try committer.submit { log.add(2) }              // waits
        let submitted = Log()
        let t = Thread { try? committer.submit { log.add(3) }; submitted.add(3) }
        t.start()
        usleep(200_000)
        #expect(submitted.all.isEmpty, "a third job was taken while one ran and one waited")
        gate.signal()
        // The third is taken once the first finished; wait for it (a loaded machine may be slow).
        let deadline = Date().addingTimeInterval(30)
        while submitted.all.isEmpty && Date() < deadline { usleep(5_000) }
        try committer.drain()
        #expect(submitted.all == [3])
        #expect(log.all == [1, 2, 3])
        committer.close()
    }

    @Test func aFailureDropsTheJobsAfterItUntilReset() throws {
        let committer = StateCommitter(name: "test-commit")
        let gate = DispatchSemaphore(value: 0)
        let log = Log()
        try committer.submit { gate.wait(); throw Failed(n: 1) }
        try committer.submit { log.add(2) }  // builds on the failed one: must not run
        gate.signal()
        #expect(throws: Failed(n: 1)) { try committer.drain() }
        #expect(throws: Failed(n: 1)) { try committer.submit { log.add(3) } }
        #expect(log.all.isEmpty)
        committer.reset()
        try committer.submit { log.add(4) }
        try committer.drain()
        #expect(log.all == [4])
        // Closed, then used again: a new thread takes the job.
        committer.close()
        usleep(50_000)
        try committer.submit { log.add(5) }
        try committer.drain()
        #expect(log.all == [4, 5])
        committer.close()
    }
}
