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

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("source"); w.string(source)
        w.key("state"); w.string(state.rawValue)
        w.key("speed"); w.double(speed, fractionDigits: 3)
        w.key("limit"); w.double(limit, fractionDigits: 3)
        w.endObject()
    }

    public init(from r: inout JSONReader) throws {
        var source: String?, state: State?, speed: Double?, limit: Double?
        try r.readObject { r, k in
            if k == "source" { source = try r.readString() }
            else if k == "state" { state = State(rawValue: try r.readString()) }
            else if k == "speed" { speed = try r.readDouble() }
            else if k == "limit" { limit = try r.readDouble() }
            else { try r.skipValue() }
        }
        guard let source, let state, let speed, let limit else { throw r.error("speed_alert needs source, state, speed, limit") }
        self.init(source: source, state: state, speed: speed, limit: limit)
    }
}
