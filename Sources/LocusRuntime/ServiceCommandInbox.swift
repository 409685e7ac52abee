import Foundation
import LocusCore

/// What a commandable service's task consumes: bus messages and control commands, merged into
/// one stream in the order they arrived, so a command runs between two `receive` calls.
enum ServiceInput: Sendable {
    case message(BusMessage)
    case command(PendingServiceCommand)
    /// One of the service's own events back from the hub (`CommandableService.acknowledge`).
    case acknowledgement(BusMessage)
}

/// Where control requests for one commandable service enter its input stream.
///
/// It accepts only while an instance is running and reading the stream; otherwise (starting,
/// restarting, stopped) a request is refused at once with the reason, rather than left to
/// wait. One inbox serves every instance the runner starts, so after a restart commands go to
/// the new instance.
final class ServiceCommandInbox: @unchecked Sendable {
    private enum State {
        case accepting(AsyncStream<ServiceInput>.Continuation)
        case refusing(String)
    }

    private let lock = NSLock()
    private var state: State
    /// Commands submitted and maybe not yet settled, so they can be refused when the stream
    /// they are in will not be read to its end (a restart, a cancelled task).
    private var outstanding: [PendingServiceCommand] = []

    init(refusing reason: String) {
        state = .refusing(reason)
    }

    /// Commands go to `stream` from now on.
    func accept(into stream: AsyncStream<ServiceInput>.Continuation) {
        lock.withLock { state = .accepting(stream) }
    }

    /// Refuses new commands with `reason` (the whole error text). Commands already in the
    /// stream stay there: `refuseOutstanding` settles those the service will not read.
    func refuse(_ reason: String) {
        lock.withLock { state = .refusing(reason) }
    }

    /// Puts `command` in the running instance's stream, behind what is already there.
    /// - Throws: `ControlCommandError` with the reason when no instance is accepting.
    func submit(_ command: PendingServiceCommand) throws {
        try lock.withLock {
            switch state {
            case .refusing(let reason):
                throw ControlCommandError(reason)
            case .accepting(let stream):
                // Under the lock, so commands enter the stream in the order they were submitted
                // and none enters after `refuse`.
                guard case .enqueued = stream.yield(.command(command)) else {
                    throw ControlCommandError("the service is not reading commands; try again")
                }
                outstanding.removeAll { $0.isSettled }
                outstanding.append(command)
            }
        }
    }

    /// Settles every submitted command the service has not begun with the current refusal
    /// reason. Call after `refuse`, once the stream will not be read any more.
    func refuseOutstanding() {
        let (commands, reason): ([PendingServiceCommand], String) = lock.withLock {
            defer { outstanding = [] }
            if case .refusing(let reason) = state { return (outstanding, reason) }
            return (outstanding, "the service stopped reading commands; try again")
        }
        for command in commands { command.refuse(ControlCommandError(reason)) }
    }
}
