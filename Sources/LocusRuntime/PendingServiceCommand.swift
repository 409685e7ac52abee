import Foundation
import LocusCore

/// One control request on its way to a commandable service, and the one reply it gets.
///
/// Three parties may settle it and exactly one does: the service's task (its reply), the
/// runner (the service stopped or is restarting before it got there), or the requester's
/// timeout (the service did not get to it in time). A command the service has begun is always
/// answered by the service: a timeout then keeps waiting, since `handle` is synchronous and
/// whatever it changed must be reported, never hidden behind "timed out".
final class PendingServiceCommand: @unchecked Sendable {
    let name: String
    /// The request's arguments, without `service`.
    let arguments: JSONValue
    /// Not a control request: a watched file changed (`FileFedService.fileChanged`).
    let fileChange: (file: WatchedFile, contents: Result<[UInt8], WatchedFileError>)?
    /// Not a control request: the runtime takes or replaces devices' state (`DeviceStateTransfer`).
    let transfer: DeviceStateRequest?

    private enum State {
        /// In the service's input stream, not yet taken.
        case queued
        /// Taken by the service's task; only the service answers it now.
        case running
        case settled(Result<JSONValue, ControlCommandError>)
    }

    /// Guards `state` and `waiter`.
    private let lock = NSLock()
    private var state = State.queued
    private var waiter: CheckedContinuation<Result<JSONValue, ControlCommandError>, Never>?
    /// Signalled once when the command is settled, for `blockingReply`.
    private let settledSignal = DispatchSemaphore(value: 0)

    init(name: String, arguments: JSONValue) {
        self.name = name
        self.arguments = arguments
        fileChange = nil
        transfer = nil
    }

    /// The runtime's delivery of a watched file's new contents, queued like a command.
    init(file: WatchedFile, contents: Result<[UInt8], WatchedFileError>) {
        name = "file " + file.path
        arguments = .null
        fileChange = (file, contents)
        transfer = nil
    }

    /// A device state exchange's request, queued like a command.
    init(transfer: DeviceStateRequest) {
        name = "device states"
        arguments = .null
        fileChange = nil
        self.transfer = transfer
    }

    /// Called by the service's task before `handle`: false if the command was already settled
    /// (timed out, or refused because the service was stopping) and must not be run.
    func begin() -> Bool {
        lock.withLock {
            guard case .queued = state else { return false }
            state = .running
            return true
        }
    }

    /// The service's reply to a command it began.
    func answer(_ result: Result<JSONValue, ControlCommandError>) {
        settle(result, onlyIfQueued: false)
    }

    /// Settles a command the service has not begun with `error`; no effect once it has.
    /// - Returns: true if this call settled it.
    @discardableResult
    func refuse(_ error: ControlCommandError) -> Bool {
        settle(.failure(error), onlyIfQueued: true)
    }

    /// True once the command has its reply.
    var isSettled: Bool {
        lock.withLock {
            if case .settled = state { return true }
            return false
        }
    }

    /// Waits for the reply. Call once.
    func reply() async -> Result<JSONValue, ControlCommandError> {
        await withCheckedContinuation { continuation in
            let ready: Result<JSONValue, ControlCommandError>? = lock.withLock {
                if case .settled(let result) = state { return result }
                waiter = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Waits for the reply on the calling thread (a source's own thread, never the cooperative
    /// pool), at most `timeout` seconds; a command not begun by then is refused with `timedOut`.
    func blockingReply(timeout: Double, timedOut: ControlCommandError) -> Result<JSONValue, ControlCommandError> {
        if settledSignal.wait(timeout: .now() + max(0, timeout)) == .timedOut {
            refuse(timedOut)
            // Begun by the service: its answer comes, as for any command.
            settledSignal.wait()
        }
        settledSignal.signal()
        return lock.withLock {
            if case .settled(let result) = state { return result }
            return .failure(timedOut)
        }
    }

    @discardableResult
    private func settle(_ result: Result<JSONValue, ControlCommandError>, onlyIfQueued: Bool) -> Bool {
        let (settled, waiter): (Bool, CheckedContinuation<Result<JSONValue, ControlCommandError>, Never>?) = lock.withLock {
            switch state {
            case .settled: return (false, nil)
            case .running where onlyIfQueued: return (false, nil)
            case .queued, .running:
                state = .settled(result)
                settledSignal.signal()
                defer { self.waiter = nil }
                return (true, self.waiter)
            }
        }
        waiter?.resume(returning: result)
        return settled
    }
}
