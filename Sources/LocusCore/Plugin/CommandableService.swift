/// One control command a service answers, as `locus ctl help` lists it.
public struct ServiceCommand: Sendable, Equatable {
    /// Dotted lower-case words, e.g. `region.add`. The first word names the plugin type.
    public var name: String
    public var summary: String

    public init(_ name: String, summary: String) {
        self.name = name
        self.summary = summary
    }
}

/// A control request a service refuses: its text goes back to `locus ctl` as the error, and the
/// service must have changed nothing.
public struct ServiceCommandError: Error, Sendable, CustomStringConvertible, Equatable {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// A service that also answers control requests (`locus ctl region.add …`), the way
/// `CLMonitor.add(_:identifier:)` changes what a monitor watches while it runs.
///
/// The runtime delivers commands on the service's own task, between two bus messages, so a
/// command never races `receive(_:output:)`: a command waits only for the message being
/// handled (it runs ahead of messages still queued in the service's feed), commands keep the
/// order they were sent in, and events emitted while handling a command are published right
/// after the events of the messages received before it.
/// Events are stamped with whatever event time the service chooses (normally the time of the
/// last message it received; a service must not read the wall clock here either).
///
/// Errors: throw `ServiceCommandError` to refuse a request (a missing or unknown argument, an
/// id that does not exist); its text is the reply's `error`. Whatever `handle` throws, the
/// runtime discards the events it emitted, replies with an error and keeps the instance
/// running — only `receive` throwing restarts a service — so a command that throws must have
/// changed nothing. Any other error is also logged as an error, as a bug.
///
/// While the service is starting, restarting after a failure, or stopping, the runtime answers
/// commands itself with an error ("service 'fences' is restarting; try again"); after a restart
/// they go to the fresh instance. A service that keeps state (`StatefulService`,
/// `KeyedStatefulService`) has each command's changes and events committed before the reply, and
/// a fresh instance starts from the last commit; commands sent while that state is restored wait
/// for it. A command the service has not reached within the daemon's timeout (5 s: it is behind
/// on its messages, or restoring a large state) is answered with an error and never run.
///
/// When several services answer one command name, the request names the instance with an
/// `"service": "<id>"` argument; with only one it may be left out.
public protocol CommandableService: ServicePlugin {
    /// Commands this instance answers. Read once, from the first instance, when the runtime
    /// registers them: every instance the factory builds from one config must answer the same.
    var commands: [ServiceCommand] { get }
    /// Handles `command` (one of `commands`) with its arguments (a JSON object, without `service`;
    /// values as `locus ctl` sent them: numbers, strings, nested JSON) and returns the reply's
    /// `result`. Called on the service's task, never concurrently with `receive`, so keep it short:
    /// bus messages wait meanwhile (no I/O: a service that keeps state has it committed by the
    /// runtime). Emit events through `output`.
    mutating func handle(command: String, arguments: JSONValue, output: inout ServiceOutput) throws -> JSONValue
    /// Called just before `handle` (and before a `FileFedService`'s `fileChanged`) with the time
    /// the runtime took the command at: the time for events of a command that comes before the
    /// service has seen any message, so that the service never reads the wall clock itself (the
    /// runtime does; a test gives a fixed time). Once it has seen a message, its last message's
    /// time is the better choice: events stay in event-time order. The default ignores it.
    mutating func commandArrives(at time: EventTime)
}

extension CommandableService {
    public mutating func commandArrives(at time: EventTime) {}
}
