import Foundation
import LocusCore

/// The host's clocks as the time check reads them: the wall clock (compared with a fix's date)
/// and a clock that never steps (the time elapsed between two fixes). Tests inject fixed ones.
public struct HostClock: Sendable {
    /// Now, on the host's wall clock.
    public var wall: @Sendable () -> EventTime
    /// Seconds on a clock that only moves forward, also while the host sleeps.
    public var elapsed: @Sendable () -> Double

    public init(wall: @escaping @Sendable () -> EventTime, elapsed: @escaping @Sendable () -> Double) {
        self.wall = wall
        self.elapsed = elapsed
    }

    public static let system = HostClock(
        wall: { EventTime(seconds: Date().timeIntervalSince1970) },
        elapsed: {
            let d = ContinuousClock.now - HostClock.start
            return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
        })
    private static let start = ContinuousClock.now

    /// One reading of both clocks, taken as lines arrive.
    public func read() -> HostTime { HostTime(wall: wall(), elapsed: elapsed()) }
}

/// A reading of `HostClock`.
public struct HostTime: Equatable, Sendable {
    public var wall: EventTime
    public var elapsed: Double

    public init(wall: EventTime, elapsed: Double) {
        self.wall = wall
        self.elapsed = elapsed
    }
}

/// Whether a report's date is believable, for receivers whose GPS week is wrong: gpsd guesses
/// the week from the receiver's two-digit year or 10-bit week number, and a wrong guess moves
/// every date by a multiple of 1024 weeks (a 2015 log comes out as 2034). A time is implausible
/// when it is more than `maxError` seconds away from
/// - the host's wall clock, if that is set (later than `clockSetAfter`: a board without a
///   real-time clock starts in 1970 until NTP or the GPS sets it), or
/// - the time the last plausible report predicts: its time plus the host time elapsed since.
///
/// Deterministic: the verdict depends only on the times passed in. The first time on a host
/// whose clock is not set is taken as it comes. `maxError` 0 turns the check off.
public struct FixTimePlausibility: Sendable {
    public enum Verdict: Equatable, Sendable {
        case plausible
        /// Why, for the source's status: both times and how far apart they are.
        case implausible(String)
    }

    /// 2020-01-01T00:00:00Z: a host clock before this has not been set.
    public static let clockSetAfter = EventTime(milliseconds: 1_577_836_800_000)
    /// 1024 weeks in seconds, the step of a GPS week-number error.
    static let rollover = 1024.0 * 7 * 86_400

    public let maxError: Double
    /// The last plausible time and the host's elapsed clock when it came.
    private var reference: (time: EventTime, elapsed: Double)?

    public init(maxError: Double) { self.maxError = maxError }

    public mutating func check(_ time: EventTime, host: HostTime) -> Verdict {
        guard maxError > 0 else { return .plausible }
        if host.wall >= Self.clockSetAfter {
            let off = Self.seconds(time, host.wall)
            if abs(off) > maxError { return .implausible(Self.describe(time, off, "the host clock", host.wall)) }
        }
        if let reference {
            let expected = EventTime(seconds: Double(reference.time.milliseconds) / 1000 + (host.elapsed - reference.elapsed))
            let off = Self.seconds(time, expected)
            if abs(off) > maxError {
                return .implausible(Self.describe(time, off, "the previous fix, \(reference.time.iso8601), and the time elapsed since", expected))
            }
        }
        reference = (time, host.elapsed)
        return .plausible
    }

    /// `a - b` in seconds.
    static func seconds(_ a: EventTime, _ b: EventTime) -> Double { Double(a.milliseconds - b.milliseconds) / 1000 }

    static func describe(_ time: EventTime, _ off: Double, _ against: String, _ expected: EventTime) -> String {
        let days = abs(off) / 86_400
        let amount = days >= 2 ? String(format: "%.0f days", days) : String(format: "%.0f s", abs(off))
        var text = "implausible fix time: \(time.iso8601) is \(amount) \(off > 0 ? "after" : "before") \(against) (\(expected.iso8601))"
        let weeks = abs(off) / Self.rollover
        if weeks >= 0.5 && abs(weeks - weeks.rounded()) * Self.rollover < 8 * 86_400 {
            text += "; a multiple of 1024 weeks: the GPS week is likely wrong (gpsd's week rollover guess)"
        }
        return text
    }
}
