import LocusCore

/// The event this service publishes (`example.speed_alert`, topic `example.speed_alert.<service-id>`).
public struct SpeedAlert: Payload, Equatable {
    public static let eventType = "example.speed_alert"
    public static let schemaVersion = 1

    public enum State: String, Sendable { case over, under }

    /// The fix source whose speed crossed the limit.
    public var source: String
    public var state: State
    /// Speed of the fix that caused the change, m/s.
    public var speed: Double
    /// The configured limit, m/s.
    public var limit: Double

    public init(source: String, state: State, speed: Double, limit: Double) {
        self.source = source
        self.state = state
        self.speed = speed
        self.limit = limit
    }
}
