import Foundation
import Testing
@testable import LocusBus

/// Issue 32 item 1: the thread start and stop every socket-owning part shares.
@Suite struct SocketWorkerTests {
    struct SetupFailed: Error, Equatable {}

    @Test func startReturnsOnceTheBodyIsSetUpAndStopJoinsIt() throws {
        let worker = SocketWorker(thread: "t-worker", for: "the test part")
        let loops = Counter()
        try worker.start { startup in
            startup.report(nil)
            while !worker.stopFlag.isSet {
                loops.add()
                Thread.sleep(forTimeInterval: 0.005)
            }
        }
        #expect(worker.isRunning)
        while loops.value == 0 { Thread.sleep(forTimeInterval: 0.001) }
        #expect(throws: LocusBusError.alreadyStarted("the test part")) { try worker.start { $0.report(nil) } }
        var woken = false
        #expect(worker.stop { woken = true })
        #expect(woken && !worker.isRunning)
        let after = loops.value
        Thread.sleep(forTimeInterval: 0.03)
        #expect(loops.value == after, "the body ran on after stop returned")
        #expect(!worker.stop(), "a second stop does nothing")
        #expect(throws: LocusBusError.stopped("the test part")) { try worker.start { $0.report(nil) } }
    }

    @Test func aSetupErrorIsThrownByStartAfterTheThreadEnded() {
        let worker = SocketWorker(thread: "t-worker", for: "the test part")
        let ended = Counter()
        #expect(throws: SetupFailed.self) {
            try worker.start { startup in
                defer { ended.add() }
                startup.report(SetupFailed())
            }
        }
        #expect(ended.value == 1 && !worker.isRunning)
        #expect(!worker.stop())
    }

    /// A body that forgets to report would have left `start` waiting for ever.
    @Test func aBodyThatEndsWithoutReportingFailsTheStart() {
        let worker = SocketWorker(thread: "t-worker", for: "the test part")
        let error = #expect(throws: LocusBusError.self) { try worker.start { _ in } }
        #expect(error?.description == "the test part ended before it was set up")
    }

    @Test func stopBeforeStartDoesNothingAndStartStillWorks() throws {
        let worker = SocketWorker(thread: "t-worker", for: "the test part")
        #expect(!worker.stop())
        try worker.start { startup in
            startup.report(nil)
            while !worker.stopFlag.isSet { Thread.sleep(forTimeInterval: 0.005) }
        }
        #expect(worker.stop())
    }

    final class Counter: @unchecked Sendable {
        /// Guards `count`.
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }
}
