/// Why the `gpsd-server` sink stopped (it could not listen).
public struct GpsdServerError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
