import Foundation
import LocusCore
@testable import LocusFormats

import Testing

/// Issue 17, item 1: epochs that come before the log's first date (RMC/ZDA) are dated once the
/// date arrives, counting the midnights in between — built from the real `bu353s4.log` (gpsd's
/// regression log, Fixtures/README.md) by removing or moving its dated sentences and rewriting
/// its times, and checked against the original's times.
struct NMEABackdatingTests {
    /// The log's lines (comments dropped).
    static func sentences() throws -> [String] {
        try FormatFixtures.text("bu353s4.log").split(whereSeparator: \.isNewline).map(String.init).filter { $0.hasPrefix("$") }
    }

    /// `body` with a fresh checksum.
    static func sentence(_ body: String) -> String {
        let sum = body.utf8.reduce(UInt8(0)) { $0 ^ $1 }
        return "$" + body + "*" + String(format: "%02X", sum)
    }

    /// The sentence with its time field (field 1) set to `millisecondsOfDay`.
    static func retimed(_ line: String, _ millisecondsOfDay: Int) -> String {
        var fields = String(line.dropFirst().prefix { $0 != "*" }).split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        let s = millisecondsOfDay / 1000
        fields[1] = String(format: "%02d%02d%02d.%03d", s / 3600, s / 60 % 60, s % 60, millisecondsOfDay % 1000)
        return sentence(fields.joined(separator: ","))
    }

    static func fixTimes(_ lines: [String], options: DecodeOptions = .init()) throws -> ([EventTime], RecordingDecoder) {
        let (obs, decoder) = try FormatFixtures.decode(bytes: Array((lines.joined(separator: "\r\n") + "\r\n").utf8), format: .nmea,
                                                      options: options)
        return (obs.filter { $0.fix != nil }.map(\.time), decoder)
    }

    @Test func everyEpochOfTheOriginalKeepsItsTimeWhenOnlyTheLastEpochHasADate() throws {
        let lines = try Self.sentences()
        let (original, _) = try Self.fixTimes(lines)
        #expect(original.count == 25)
        // Only the last RMC left: 24 epochs of GGA (and GSA/GSV) before the first date.
        let lastRMC = try #require(lines.lastIndex { $0.hasPrefix("$GPRMC") })
        let derived = lines.enumerated().filter { !$0.element.hasPrefix("$GPRMC") || $0.offset == lastRMC }.map(\.element)
        let (times, decoder) = try Self.fixTimes(derived)
        #expect(times == original)
        #expect(decoder.statistics[detail: "backdated_epochs"] == 24)
        #expect(decoder.statistics[detail: "undated_epochs_dropped"] == 0)
        #expect(decoder.warnings.isEmpty, "\(decoder.warnings)")
    }

    /// The log's 25 GGA epochs, 5 h apart from 22:00 (a midnight every few epochs: 5 days in
    /// all), with one ZDA after epoch `dated` naming 2014-12-31 for it. Each epoch's expected
    /// time is that ZDA's instant plus (k − dated) × 5 h.
    static func multiDayLog(datedAt dated: Int) throws -> (lines: [String], expected: [EventTime]) {
        let ggas = try sentences().filter { $0.hasPrefix("$GPGGA") }
        let step = 5 * 3_600_000, start = 22 * 3_600_000
        var lines: [String] = []
        for (k, gga) in ggas.enumerated() {
            let tod = (start + k * step) % 86_400_000
            lines.append(retimed(gga, tod))
            if k == dated {
                lines.append(retimed(sentence("GPZDA,000000.000,31,12,2014,00,00"), tod))
            }
        }
        let anchor = try #require(EventTime(iso8601: "2014-12-31T00:00:00Z")).milliseconds + Int64((start + dated * step) % 86_400_000)
        let expected = (0..<ggas.count).map { k in EventTime(milliseconds: anchor + Int64((k - dated) * step)) }
        return (lines, expected)
    }

    @Test(arguments: [0, 12, 24])
    func aGGAOnlyLogOverFiveDaysIsDatedFromOneZDA(datedAt: Int) throws {
        let (lines, expected) = try Self.multiDayLog(datedAt: datedAt)
        let (times, decoder) = try Self.fixTimes(lines)
        #expect(times == expected)
        #expect(decoder.statistics[detail: "backdated_epochs"] == datedAt)
        #expect(decoder.warnings.isEmpty, "\(decoder.warnings)")
    }

    @Test func aGivenDateStillWins() throws {
        let (lines, _) = try Self.multiDayLog(datedAt: 12)
        let day = try #require(EventTime(iso8601: "2020-01-01T00:00:00Z"))
        let (times, decoder) = try Self.fixTimes(lines, options: .init(fallbackDate: day))
        #expect(times.first == EventTime(milliseconds: day.milliseconds + 22 * 3_600_000))
        #expect(decoder.statistics[detail: "fallback_dated_epochs"] == 12)
    }

    @Test func withoutAnyDateTheWarningSaysWhatWasFound() throws {
        let noDate = try Self.sentences().filter { !$0.hasPrefix("$GPRMC") }
        let (times, decoder) = try Self.fixTimes(noDate)
        #expect(times.isEmpty)
        #expect(decoder.warnings == ["the log has no date (no RMC or ZDA sentence with a date): 25 epoch(s) dropped; give the day with --date YYYY-MM-DD"])
        // A ZDA without its date fields is not a date either.
        let emptyZDA = noDate + [Self.sentence("GPZDA,030743.000,,,,,")]
        #expect(try Self.fixTimes(emptyZDA).1.warnings.first?.hasPrefix("the log has no date") == true)
    }
}
