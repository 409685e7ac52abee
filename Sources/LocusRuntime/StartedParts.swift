import Foundation

/// The daemon's bus parts (the ZAP handler, the journal, the hub, the catch-up and control
/// servers, the restricted publishers, the status outlet) in the order they were started, so
/// that one teardown stops them in reverse: at shutdown, and when anything after them fails
/// to start (`Daemon.run` defers `stopAll`).
///
/// Not entries of the `ServiceGroup` themselves: the group starts its services concurrently,
/// and every socket must be bound (a bind error reported, with nothing left bound) before the
/// first plugin subscribes.
final class StartedParts: @unchecked Sendable {
    /// Guards `stops`.
    private let lock = NSLock()
    private var stops: [() -> Void] = []

    /// Records the teardown of a part that has just started.
    func started(_ stop: @escaping () -> Void) {
        lock.withLock { stops.append(stop) }
    }

    /// Stops every part, newest first. Idempotent.
    func stopAll() {
        while let stop = lock.withLock({ stops.popLast() }) { stop() }
    }
}
