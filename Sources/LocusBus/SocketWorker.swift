import Foundation

/// The one thread of a component that owns ZeroMQ sockets (the hub, the control and catch-up
/// servers, the ZAP handler, restricted publishers, in-process outlets and subscriptions):
/// started once, stopped once, the same way for all of them.
///
/// `start` runs the component's body on a new `WorkerThread` and returns when the body has
/// reported its setup (sockets created, bound or connected): a setup error is thrown by `start`
/// itself, after the thread has ended, so nothing is left bound. `stop` sets `stopFlag` (and
/// runs the component's own way of waking its loop), then joins the thread.
public final class SocketWorker: @unchecked Sendable {
    private enum State {
        case idle
        case running(WorkerThread)
        case stopped
    }

    /// Set by `stop`; the body's loop checks it at least every ~100 ms.
    public let stopFlag = StopFlag()
    private let threadName: String
    private let what: String
    /// Guards `state`; held through `start`, so a `stop` meanwhile waits for the setup.
    private let lock = NSLock()
    private var state = State.idle

    /// - Parameters:
    ///   - threadName: the OS thread's name (`top -H`, `perf`), 15 bytes at most.
    ///   - what: the component as errors name it ("the hub").
    public init(thread threadName: String, for what: String) {
        self.threadName = threadName
        self.what = what
    }

    /// True between a successful `start` and `stop`.
    public var isRunning: Bool {
        lock.withLock {
            if case .running = state { return true }
            return false
        }
    }

    /// Runs `body` on the worker's thread and waits until it calls `startup.report`: with nil
    /// once its sockets are set up (then it serves until `stopFlag` is set), with the error
    /// otherwise (then it returns). A body that returns without reporting counts as failed.
    /// - Throws: what the body reported; `LocusBusError` on a second start or after `stop`.
    public func start(_ body: @escaping @Sendable (_ startup: StartupResult) -> Void) throws {
        try lock.withLock {
            switch state {
            case .running: throw LocusBusError.alreadyStarted(what)
            case .stopped: throw LocusBusError.stopped(what)
            case .idle: break
            }
            let startup = StartupResult()
            let what = self.what
            let thread = WorkerThread(name: threadName) {
                body(startup)
                startup.report(LocusBusError("\(what) ended before it was set up"))  // ignored once reported
            }
            thread.start()
            do {
                try startup.wait()
            } catch {
                thread.join()
                state = .stopped
                throw error
            }
            state = .running(thread)
        }
    }

    /// Sets `stopFlag`, runs `wake` (the component's own signal to its loop, if it has one) and
    /// waits for the body to return. Returns false, doing nothing, when the worker is not
    /// running (never started, failed to start, or already stopped). Idempotent; any thread
    /// except the worker's own.
    @discardableResult
    public func stop(wake: () -> Void = {}) -> Bool {
        let thread: WorkerThread? = lock.withLock {
            guard case .running(let thread) = state else { return nil }
            state = .stopped
            return thread
        }
        guard let thread else { return false }
        stopFlag.set()
        wake()
        thread.join()
        return true
    }
}
