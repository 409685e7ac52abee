import Foundation
import LocusCore
@testable import LocusGpsdPlugin
import LocusTestKit
import Testing

/// Issue 30 item 13: the rule that flags fix dates gpsd got wrong (a GPS week 1024 weeks off).
/// Deterministic: the verdicts depend only on the fix times and the host readings given.
@Suite struct FixTimePlausibilityTests {
    static let day = 86_400.0
    static let weeks1024 = 1024 * 7 * day
    /// 2025-06-01T12:00:00Z, a set host clock.
    static let hostNow = 1_748_779_200.0
    /// 2015-02-25T07:41:50Z, the date of gpsd's beidou-bd.log.
    static let recorded = 1_424_850_110.0

    static func t(_ seconds: Double) -> EventTime { EventTime(seconds: seconds) }

    /// (fix time, host wall, host elapsed) in sequence → which are implausible.
    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var steps: [(fix: Double, wall: Double, elapsed: Double)]
        var implausible: [Bool]
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(name: "a receiver in step with a set host clock",
             steps: [(hostNow, hostNow + 0.4, 10), (hostNow + 1, hostNow + 1.4, 11), (hostNow + 2, hostNow + 2.5, 12)],
             implausible: [false, false, false]),
        Case(name: "gpsd's 2034 on a host clock of 2025",
             steps: [(recorded + weeks1024, hostNow, 10), (recorded + weeks1024 + 1, hostNow + 1, 11)],
             implausible: [true, true]),
        Case(name: "a host clock a day and a minute behind, at the default a day",
             steps: [(hostNow + day + 60, hostNow, 10)],
             implausible: [true]),
        Case(name: "host clock not set (1970): the first fix is taken, a jump of 1024 weeks is not, the fixes after it are",
             steps: [(recorded, 5, 10), (recorded + 1, 6, 11), (recorded + 2 + weeks1024, 7, 12),
                     (recorded + 3 + weeks1024, 8, 13), (recorded + 4, 9, 14)],
             implausible: [false, false, true, true, false]),
        Case(name: "gpsfake looping a log: time steps back by the log's length, far below a day",
             steps: [(recorded, 5, 10), (recorded + 30, 6, 40), (recorded, 7, 41), (recorded + 1, 8, 42)],
             implausible: [false, false, false, false]),
        Case(name: "a receiver off for a week, host clock not set: elapsed time on the host agrees",
             steps: [(recorded, 5, 10), (recorded + 7 * day, 6, 10 + 7 * day)],
             implausible: [false, false]),
    ]

    @Test(arguments: cases)
    func flagsDatesAwayFromTheHostClockOrThePreviousFixes(_ c: Case) {
        var check = FixTimePlausibility(maxError: Self.day)
        let got = c.steps.map { s -> Bool in
            check.check(Self.t(s.fix), host: HostTime(wall: Self.t(s.wall), elapsed: s.elapsed)) != .plausible
        }
        #expect(got == c.implausible)
    }

    @Test func theReasonGivesBothTimesAndNamesAWeekRollover() {
        var check = FixTimePlausibility(maxError: Self.day)
        #expect(check.check(Self.t(Self.recorded), host: HostTime(wall: Self.t(0), elapsed: 0)) == .plausible)
        guard case .implausible(let why) = check.check(Self.t(Self.recorded + 1 + Self.weeks1024),
                                                         host: HostTime(wall: Self.t(1), elapsed: 1)) else {
            Issue.record("a jump of 1024 weeks was taken"); return
        }
        #expect(why == "implausible fix time: 2034-10-11T07:41:51.000Z is 7168 days after the previous fix, "
                + "2015-02-25T07:41:50.000Z, and the time elapsed since (2015-02-25T07:41:51.000Z); a multiple of "
                + "1024 weeks: the GPS week is likely wrong (gpsd's week rollover guess)")
        var host = FixTimePlausibility(maxError: Self.day)
        guard case .implausible(let against) = host.check(Self.t(Self.recorded), host: HostTime(wall: Self.t(Self.hostNow), elapsed: 0)) else {
            Issue.record("2015 on a 2025 host clock was taken"); return
        }
        #expect(against.hasPrefix("implausible fix time: 2015-02-25T07:41:50.000Z is 3749 days before the host clock (2025-06-01T12:00:00.000Z)"),
                "\(against)")
    }

    @Test func zeroTurnsTheCheckOff() {
        var check = FixTimePlausibility(maxError: 0)
        #expect(check.check(Self.t(Self.recorded + Self.weeks1024), host: HostTime(wall: Self.t(Self.hostNow), elapsed: 0)) == .plausible)
    }

    /// The session counts every flagged fix, publishes it all the same, and keeps the first
    /// reason of an episode (one status per episode) until a plausible fix ends it.
    @Test func theSessionCountsFlaggedFixesAndKeepsOneReasonPerEpisode() {
        var session = GpsdSession(source: "gps0", device: nil, maxTimeError: Self.day)
        var out: [GpsdSession.Output] = []
        func tpv(_ time: String, elapsed: Double) -> String? {
            session.hostTime = HostTime(wall: Self.t(Self.hostNow + elapsed), elapsed: elapsed)
            _ = session.handle(line: #"{"class":"TPV","mode":2,"lat":45.0,"lon":14.0,"time":"\#(time)"}"#, into: &out)
            return session.implausibleTime
        }
        #expect(tpv("2025-06-01T12:00:00.000Z", elapsed: 0) == nil)
        let first = tpv("2044-01-16T12:00:01.000Z", elapsed: 1)
        #expect(first?.contains("2044-01-16T12:00:01.000Z") == true, "\(first ?? "nil")")
        #expect(tpv("2044-01-16T12:00:02.000Z", elapsed: 2) == first)
        #expect(session.counters.implausibleTime == 2)
        #expect(tpv("2025-06-01T12:00:03.000Z", elapsed: 3) == nil)
        #expect(session.counters.implausibleTime == 2 && session.counters.fixesPublished == 4 && out.count == 4)
    }
}
