import LocusCore
@testable import LocusNMEA
import Testing

/// `NMEADecoderOptions.holdUndatedEpochs`: undated epochs wait for a date, within a bound.
struct NMEAUndatedHoldTests {
    static func gga(_ time: String, lat: String = "4807.038") -> String {
        nmea("GPGGA,\(time),\(lat),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,")
    }

    static func fixTimes(_ r: (observations: [NMEAObservation], statistics: NMEAStatistics)) -> [String] {
        r.observations.compactMap { if case .fix(_, let t) = $0 { t.iso8601 } else { nil } }
    }

    @Test func heldEpochsAreDatedBackwardsAcrossMidnight() {
        let text = Self.gga("235958.000") + Self.gga("235959.000") + Self.gga("000000.000") + Self.gga("000001.000")
            + nmea("GPZDA,000001.000,01,01,2025,00,00") + Self.gga("000002.000")
        var options = NMEADecoderOptions()
        options.holdUndatedEpochs = 10
        for chunk in [nil, 7] as [Int?] {
            let r = decode(text, options: options, chunk: chunk)
            #expect(Self.fixTimes(r) == ["2024-12-31T23:59:58.000Z", "2024-12-31T23:59:59.000Z", "2025-01-01T00:00:00.000Z",
                                         "2025-01-01T00:00:01.000Z", "2025-01-01T00:00:02.000Z"])
            #expect(r.statistics.fixesDatedBackwards == 3 && r.statistics.fixesWithoutDate == 0 && r.statistics.datesSeen == 1)
        }
        // Off (a live receiver): dropped and counted, as before.
        let off = decode(text)
        #expect(Self.fixTimes(off) == ["2025-01-01T00:00:01.000Z", "2025-01-01T00:00:02.000Z"])
        #expect(off.statistics.fixesWithoutDate == 3)
    }

    @Test func theBoundDropsTheOldestAndCountsThem() {
        var text = ""
        for s in 10..<20 { text += Self.gga("1200\(s).000") }
        text += nmea("GPRMC,120020.000,A,4807.038,N,01131.000,E,0.1,0.0,150325,,,A")
        var options = NMEADecoderOptions()
        options.holdUndatedEpochs = 4
        let r = decode(text, options: options)
        #expect(Self.fixTimes(r) == ["2025-03-15T12:00:16.000Z", "2025-03-15T12:00:17.000Z", "2025-03-15T12:00:18.000Z",
                                     "2025-03-15T12:00:19.000Z", "2025-03-15T12:00:20.000Z"])
        #expect(r.statistics.fixesWithoutDate == 6 && r.statistics.fixesDatedBackwards == 4)
    }

    @Test func epochsStillWaitingAtTheEndAreDroppedAndCounted() {
        var options = NMEADecoderOptions()
        options.holdUndatedEpochs = 100
        let r = decode(Self.gga("120000.000") + Self.gga("120001.000"), options: options)
        #expect(Self.fixTimes(r).isEmpty)
        #expect(r.statistics.fixesWithoutDate == 2 && r.statistics.datesSeen == 0)
    }
}
