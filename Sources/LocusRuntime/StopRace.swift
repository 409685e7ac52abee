import Foundation

/// Decides once between "the plugin's work finished" and "its stop budget ran out", for
/// `PluginRunner`: whichever comes first wins, and `wait` returns it.
///
/// A plugin stuck in a call that does not look at cancellation (a service inside `receive`
/// restoring a large store, a C call that blocks) would otherwise hold the daemon's stop past
/// ServiceLifecycle's cancellation budget, and ServiceLifecycle then aborts the process
/// (SIGILL): a SIGTERM turned into a trap. The runner abandons such a plugin instead.
final class StopRace: @unchecked Sendable {
    /// Guards `outcome`, `waiter` and `budgetStarted`.
    private let lock = NSLock()
    private var outcome: Bool?
    private var waiter: CheckedContinuation<Bool, Never>?
    private var budgetStarted = false

    /// True if the work finished, false if the budget ran out first.
    func wait() async -> Bool {
        await withCheckedContinuation { c in
            let ready: Bool? = lock.withLock {
                if let outcome { return outcome }
                waiter = c
                return nil
            }
            if let ready { c.resume(returning: ready) }
        }
    }

    /// The work finished.
    func finished() { settle(true) }

    /// Starts the budget (once): `seconds` from now the race is lost unless the work finished.
    func startBudget(_ seconds: Double) {
        let first = lock.withLock { () -> Bool in
            defer { budgetStarted = true }
            return !budgetStarted
        }
        guard first else { return }
        Task.detached { [self] in
            try? await Task.sleep(nanoseconds: UInt64(max(0, seconds) * 1e9))
            settle(false)
        }
    }

    private func settle(_ value: Bool) {
        let c: CheckedContinuation<Bool, Never>? = lock.withLock {
            guard outcome == nil else { return nil }
            outcome = value
            defer { waiter = nil }
            return waiter
        }
        c?.resume(returning: value)
    }
}
