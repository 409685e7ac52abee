/// Why a message was refused, with a detail for the log. Details never contain message
/// content beyond field names and event types (bodies carry coordinates).
public struct MessageRejection: Error, Sendable, Equatable, CustomStringConvertible {
    public var reason: DropReason
    public var detail: String
    public var description: String { "\(reason.rawValue): \(detail)" }
}
