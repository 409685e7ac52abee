/// Restart delays for a failing plugin: 0.5 s doubling to 30 s, back to the start once the
/// plugin has run for a minute — a plugin that fails at once does not spin, one that fails
/// once a day restarts quickly.
public struct Backoff: Sendable, Equatable {
    public var initial: Double = 0.5
    public var maximum: Double = 30
    /// A run at least this long resets the delay.
    public var resetAfter: Double = 60
    public private(set) var next: Double

    public init(initial: Double = 0.5, maximum: Double = 30, resetAfter: Double = 60) {
        self.initial = initial
        self.maximum = maximum
        self.resetAfter = resetAfter
        self.next = initial
    }

    /// The delay before the next attempt, given how long the failed attempt ran.
    public mutating func delay(afterRunning seconds: Double) -> Double {
        if seconds >= resetAfter { next = initial }
        let d = next
        next = min(next * 2, maximum)
        return d
    }
}
