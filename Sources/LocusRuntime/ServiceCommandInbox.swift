import Foundation
import LocusCore

/// Where control requests for one commandable service wait for its task.
///
/// The service's task takes them between two bus messages (`hasPending`, `takePending`), so a
/// command never runs concurrently with `receive`; when the feed is idle, `submit` wakes the
/// task through the `wake` it was given. It accepts only while an instance is running;
/// otherwise (starting, restarting, stopped) a request is refused at once with the reason,
/// rather than left to wait. One inbox serves every instance the runner starts, so after a
/// restart commands go to the new instance.
final class ServiceCommandInbox: @unchecked Sendable {
    private enum State {
        case accepting(wake: @Sendable () -> Void)
        case refusing(String)
    }

    /// Guards `state`, `pending` and `outstanding`.
    private let lock = NSLock()
    private var state: State
    /// Inputs submitted and not yet taken by the service's task, in the order they came.
    private var pending: [PendingServiceCommand] = []
    /// Commands submitted and maybe not yet settled, so they can be refused when the task
    /// will not take them (a restart, a cancelled task).
    private var outstanding: [PendingServiceCommand] = []

    init(refusing reason: String) {
        state = .refusing(reason)
    }

    /// An instance takes inputs from now on; `wake` makes its task look (it may be waiting for
    /// a bus message).
    func accept(wake: @escaping @Sendable () -> Void) {
        lock.withLock { state = .accepting(wake: wake) }
    }

    /// Refuses new commands with `reason` (the whole error text). Commands already submitted
    /// stay: the task may still take them, and `refuseOutstanding` settles those it will not.
    func refuse(_ reason: String) {
        lock.withLock { state = .refusing(reason) }
    }

    /// Queues `command` for the running instance, behind the inputs already waiting.
    /// - Throws: `ControlCommandError` with the reason when no instance is accepting.
    func submit(_ command: PendingServiceCommand) throws {
        let wake: @Sendable () -> Void = try lock.withLock {
            switch state {
            case .refusing(let reason):
                throw ControlCommandError(reason)
            case .accepting(let wake):
                pending.append(command)
                outstanding.removeAll { $0.isSettled }
                outstanding.append(command)
                return wake
            }
        }
        wake()
    }

    /// True when inputs wait (cheap enough to ask between every two messages).
    var hasPending: Bool { lock.withLock { !pending.isEmpty } }

    /// The waiting inputs, in order; the inbox holds none afterwards.
    func takePending() -> [PendingServiceCommand] {
        lock.withLock {
            defer { pending = [] }
            return pending
        }
    }

    /// Settles every submitted command the service has not begun with the current refusal
    /// reason. Call after `refuse`, once the task will
    /// not take inputs any more.
    func refuseOutstanding() {
        let (commands, reason): ([PendingServiceCommand], String) = lock.withLock {
            defer {
                outstanding = []
                pending = []
            }
            if case .refusing(let reason) = state { return (outstanding, reason) }
            return (outstanding, "the service stopped reading commands; try again")
        }
        for command in commands { command.refuse(ControlCommandError(reason)) }
    }
}
