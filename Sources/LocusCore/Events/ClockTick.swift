/// A tick of the bus clock (`clock.tick`, topic `clock.tick`): the envelope time is "now" in
/// event time. Services use ticks for timeouts (a source gone silent, a beacon not heard), so
/// that timeouts fire identically in live runs and in replays at any speed.
public struct ClockTick: Payload, Equatable {
    public static let eventType = "clock.tick"
    public static let schemaVersion = 1

    public enum Basis: String, Sendable { case wall, recorded }
    /// `wall` when the runtime ticks from the system clock, `recorded` when a replay ticks in recorded time.
    public var basis: Basis
    /// Nominal seconds between ticks.
    public var interval: Double

    public init(basis: Basis, interval: Double) {
        self.basis = basis
        self.interval = interval
    }
}
