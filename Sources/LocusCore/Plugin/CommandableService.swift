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
/// command never races `receive(_:output:)`. Events emitted while handling a command are
/// published like `receive`'s, stamped with whatever event time the service chooses (normally
/// the time of the last message it received). A command that throws must change nothing.
///
/// When several services answer one command name, the request names the instance with an
/// `"service": "<id>"` argument; with only one it may be left out.
public protocol CommandableService: ServicePlugin {
    /// Commands this instance answers. Read once, when the runtime registers them.
    var commands: [ServiceCommand] { get }
    /// Handles `command` (one of `commands`) with its arguments (a JSON object, without `service`)
    /// and returns the reply's `result`.
    mutating func handle(command: String, arguments: JSONValue, output: inout ServiceOutput) throws -> JSONValue
}
