import Foundation
import LocusCore

/// Control commands for a `CommandableService`, run on the service's own task between two bus
/// messages.
///
/// `perform` puts each command in the `ServiceCommandInbox`; the service's task takes what waits
/// there before each message of its feed, and the inbox wakes the task when the feed is idle. So
/// a command never runs concurrently with `receive`, waits behind at most the message being
/// handled, and its events are published right there, between the events of two messages.
extension PluginRunner {
    /// Runs `command` on the running instance, between two bus messages, and returns its result.
    ///
    /// Commands are run in the order `perform` is called. The reply is an error, and the service
    /// has changed nothing, when: the service refused the command (`ServiceCommandError`); no
    /// instance is running (starting, restarting after a failure, shutting down); or the service
    /// did not take the command within `timeout` seconds (it is behind on its messages). A
    /// command the service has begun is always answered with what the service replied.
    /// - Throws: `ControlCommandError`, whose text goes back to `locus ctl`.
    public func perform(command: String, arguments: JSONValue, timeout: Double) async throws -> JSONValue {
        guard let inbox = commandInbox else {
            throw ControlCommandError("service '\(plugin.id)' answers no commands")
        }
        let pending = PendingServiceCommand(name: command, arguments: arguments)
        try inbox.submit(pending)
        let id = plugin.id
        let timer = Task {
            do { try await Task.sleep(nanoseconds: UInt64(max(0, timeout) * 1e9)) } catch { return }
            pending.refuse(ControlCommandError(
                "service '\(id)' did not get to '\(command)' within \(Self.format(seconds: timeout)) s "
                    + "(it is behind on its messages); nothing was changed, try again"))
        }
        defer { timer.cancel() }
        let result = await withTaskCancellationHandler {
            await pending.reply()
        } onCancel: {
            pending.refuse(ControlCommandError("the request for '\(command)' was cancelled; nothing was changed"))
        }
        return try result.get()
    }

    /// Runs one instance of a commandable (or file-fed) service until its feed ends (shutdown),
    /// it throws from `receive` (rethrown: the supervisor restarts it) or the task is
    /// cancelled. Commands still waiting when it ends are refused with the reason (restarting,
    /// stopping); after a drained feed, those already submitted are answered first.
    func runCommandable(_ service: inout any ServicePlugin, feed: any BusFeed,
                        inbox: ServiceCommandInbox) async throws {
        let queue = feed.queue
        inbox.accept(wake: { queue.wake() })
        // beginShutdown may have refused just before `accept`: refuse again so it sticks.
        if isShuttingDown || Task.isCancelled { inbox.refuse(Self.stoppingReason(plugin.id)) }
        let watch = watchFiles(of: service, inbox: inbox)
        defer { watch?.cancel() }
        var failure: (any Error)?
        do {
            reading: while true {
                try takeInbox(inbox, into: &service)
                guard let batch = await queue.take() else { break }
                for message in batch {
                    if Task.isCancelled { logCancelledBacklog(); break reading }
                    var output = ServiceOutput()
                    try service.receive(message, output: &output)
                    publish(output)
                    noteConsumed(message)
                    if inbox.hasPending { try takeInbox(inbox, into: &service) }
                }
                noteCounters(of: service)
            }
        } catch {
            failure = error
        }
        let stopping = isShuttingDown || Task.isCancelled
        inbox.refuse(stopping ? Self.stoppingReason(plugin.id)
                     : failure != nil ? Self.restartingReason(plugin.id) : Self.stoppedReason(plugin.id))
        // The feed ended (a drain at shutdown): commands submitted before are still answered.
        if failure == nil && !Task.isCancelled {
            do { try takeInbox(inbox, into: &service) } catch { failure = error }
        }
        // What is left will not be taken: answer its commands now.
        inbox.refuseOutstanding()
        if let failure { throw failure }
    }

    /// Runs the commands waiting in `inbox`, in order.
    private func takeInbox(_ inbox: ServiceCommandInbox, into service: inout any ServicePlugin) throws {
        let commands = inbox.takePending()
        for command in commands { run(command, on: &service) }
        if !commands.isEmpty { noteCounters(of: service) }
    }

    /// Runs one command on the service's task. Its events are published only if it succeeds:
    /// a command that throws must have changed nothing.
    ///
    /// Any error from `handle` becomes the reply and the instance keeps running. Only
    /// `receive` throwing restarts a service: a refused request (`ServiceCommandError`) is the
    /// normal way to say no, and an unexpected error is logged as an error but does not
    /// discard the state every other request built up. The protocol requires `handle` to
    /// change nothing when it throws, whatever it throws.
    func run(_ command: PendingServiceCommand, on service: inout any ServicePlugin) {
        guard command.begin() else { return }  // timed out or refused while it waited
        var output = ServiceOutput()
        do {
            let result = try apply(command, to: &service, output: &output)
            publish(output)
            command.answer(.success(result))
        } catch {
            command.answer(.failure(commandFailure(error, command: command.name)))
        }
    }

    /// Hands `command` to the service: a control request to `handle`, a watched file's change
    /// to `fileChanged`. The service is written back only when it accepted.
    func apply(_ command: PendingServiceCommand, to service: inout any ServicePlugin,
               output: inout ServiceOutput) throws -> JSONValue {
        if let transfer = command.transfer {
            guard var moving = service as? any DeviceStateTransfer, moving.movesDeviceState else {
                throw ControlCommandError("service '\(plugin.id)' moves no device state")
            }
            switch transfer.work {
            case .export(let isIncluded):
                transfer.exported = try moving.deviceStates(where: isIncluded)
            case .replace(let isIncluded, let states):
                try moving.replaceDeviceStates(where: isIncluded, with: states)
                service = moving
            }
            return .null
        }
        // The time for events of a command before any message: the runtime reads the clock.
        var target = service
        if var stamped = target as? any CommandableService {
            stamped.commandArrives(at: EventTime(seconds: Date().timeIntervalSince1970))
            target = stamped
        }
        if let change = command.fileChange {
            guard var fed = target as? any FileFedService else { throw ControlCommandError("service '\(plugin.id)' reads no files") }
            try fed.fileChanged(change.file, contents: change.contents, output: &output)
            service = fed
            return .null
        }
        guard var commandable = target as? any CommandableService else {
            throw ControlCommandError("service '\(plugin.id)' answers no commands")
        }
        let result = try commandable.handle(command: command.name, arguments: command.arguments, output: &output)
        service = commandable
        return result
    }

    /// Watches the files of a `FileFedService` while this instance runs: every `checkInterval`
    /// seconds of wall time, a file whose signature changed since the instance was built (or
    /// since the last delivery) is read and its contents queued in `inbox` like a command, so
    /// the service takes it between two batches. Nil when the service reads no files.
    func watchFiles(of service: any ServicePlugin, inbox: ServiceCommandInbox?) -> Task<Void, Never>? {
        guard let inbox, let fed = service as? any FileFedService else { return nil }
        let files = fed.watchedFiles
        guard let interval = files.map(\.checkInterval).min() else { return nil }
        let ledger = plugin.watchedFiles
        return Task {
            var known: [String: WatchedFileReader.Signature?] = [:]
            for file in files { known[file.path] = .some(ledger.signature(file.path)) }
            while !Task.isCancelled {
                do { try await Task.sleep(nanoseconds: UInt64(max(0.01, interval) * 1e9)) } catch { return }
                for file in files {
                    let now = WatchedFileReader.signature(of: file.path)
                    guard known[file.path] != .some(now) else { continue }
                    let contents = now == nil ? .failure(WatchedFileError("cannot be read (missing, or no permission)"))
                        : WatchedFileReader.read(file)
                    let delivery = PendingServiceCommand(file: file, contents: contents)
                    // Not accepted (the instance is stopping or restarting): a new instance reads the file anew.
                    guard (try? inbox.submit(delivery)) != nil else { return }
                    known[file.path] = .some(now)
                }
            }
        }
    }

    /// The reply to a command `handle` threw on: a refusal's own text, or (logged as an error:
    /// a bug) the unexpected error.
    func commandFailure(_ error: any Error, command: String) -> ControlCommandError {
        if let refusal = error as? ServiceCommandError { return ControlCommandError(refusal.description) }
        logger.error("service command failed with an unexpected error; the instance keeps running", metadata: [
            "plugin": "\(plugin.id)", "command": "\(command)", "error": "\(error)",
        ])
        return ControlCommandError("service '\(plugin.id)' failed on '\(command)': \(error)")
    }

    func publish(_ output: ServiceOutput) {
        for e in output.events { publisher.publish(e.payload, topic: e.topic, time: e.time) }
    }

    static func startingReason(_ id: String) -> String { "service '\(id)' is starting; try again" }
    static func restartingReason(_ id: String) -> String { "service '\(id)' is restarting; try again" }
    static func stoppingReason(_ id: String) -> String { "service '\(id)' is stopping: the daemon is shutting down" }
    static func stoppedReason(_ id: String) -> String { "service '\(id)' has stopped" }
    static func failedReason(_ id: String, _ reason: String) -> String {
        "service '\(id)' failed and was not restarted (\(reason)); see `locus ctl status` and the log"
    }

    /// `5` for whole seconds, `0.5` otherwise.
    static func format(seconds: Double) -> String {
        seconds == seconds.rounded() && abs(seconds) < 1e9 ? String(Int(seconds)) : String(seconds)
    }
}
