/// Misuse and setup failures of the bus components (libzmq failures are `ZMQError`s).
public struct LocusBusError: Error, CustomStringConvertible, Sendable, Equatable {
    public var description: String

    init(_ description: String) { self.description = description }

    static func alreadyStarted(_ what: String) -> LocusBusError { LocusBusError("\(what) was already started") }
    static func stopped(_ what: String) -> LocusBusError { LocusBusError("\(what) was stopped and cannot be restarted") }
}
