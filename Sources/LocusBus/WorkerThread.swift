import Foundation

/// A dedicated OS thread that can be joined. Every socket-owning component runs its socket on
/// one of these, because a ZeroMQ socket must stay on the thread that created it (Swift tasks
/// hop between threads).
/// Immutable after init: its `let`s are a `Thread` and a `DispatchSemaphore`, both thread-safe.
final class WorkerThread: @unchecked Sendable {
    private let thread: Thread
    private let finished: DispatchSemaphore

    init(name: String, body: @escaping @Sendable () -> Void) {
        let finished = DispatchSemaphore(value: 0)
        self.finished = finished
        let osName = String(name.utf8.prefix(15)) ?? "locus-worker" // Linux limits thread names to 15 bytes
        thread = Thread {
            // Name the OS thread too, so `top -H`, `perf` and /proc show which worker is busy.
            #if os(Linux)
            try? osName.write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
            #endif
            body()
            finished.signal()
        }
        thread.name = name
        // JSON validation recurses at most JSONReader.maxDepth levels: 1 MiB is ample.
        thread.stackSize = 1 << 20
    }

    func start() { thread.start() }

    /// Blocks until the body has returned. Idempotent; must not be called from the thread itself.
    func join() {
        precondition(Thread.current !== thread, "a worker thread cannot join itself")
        finished.wait()
        finished.signal() // let later joins through
    }

    /// Waits up to `seconds` for the body to return.
    func join(timeout seconds: Double) -> Bool {
        guard finished.wait(timeout: .now() + seconds) == .success else { return false }
        finished.signal()
        return true
    }
}
