import LocusCore
import Testing
@testable import LocusNMEA

@Suite struct NMEAEpochAssemblerTests {
    /// A Garmin cycle from the gpsd logs: RMC, GGA, GSA, GSV.
    static let cycle = [
        "$GPRMC,113258,A,3238.9148,N,10822.4466,W,005.3,247.1,181022,009.3,E*6B",
        "$GPGGA,113258,3238.9148,N,10822.4466,W,2,08,1.1,1577.4,M,-24.6,M,,*4D",
        "$GPGSA,A,3,02,05,11,12,18,20,25,29,,,,,1.4,1.1,0.9*3D",
        "$GPGSV,3,1,11,02,60,319,36,05,77,132,38,11,29,052,29,12,46,186,46*74",
        "$GPGSV,3,2,11,18,19,264,16,20,48,049,35,25,58,245,39,29,45,323,38*7B",
        "$GPGSV,3,3,11,06,01,064,00,13,09,132,00,15,10,164,00*41",
        "$PGRME,7.6,M,41.7,M,42.4,M*2F",
    ].joined(separator: "\r\n") + "\r\n"

    /// A GPS+GLONASS receiver (SiRFstar V style) ends its epoch with `$GLGGA`, which counts
    /// GLONASS satellites only; the GSAs list all of them.
    @Test func satellitesUsedCountsEverySystemsGSANotTheLastGGA() throws {
        let text = nmea("GPRMC,113258,A,3238.9148,N,10822.4466,W,005.3,247.1,181022,009.3,E")
            + nmea("GPGGA,113258,3238.9148,N,10822.4466,W,1,06,1.1,1577.4,M,-24.6,M,,")
            + nmea("GNGSA,A,3,02,05,11,12,18,20,,,,,,,1.4,1.1,0.9,1")
            + nmea("GNGSA,A,3,65,66,72,,,,,,,,,,1.4,1.1,0.9,2")
            + nmea("GLGGA,113258,3238.9148,N,10822.4466,W,1,03,1.1,1577.4,M,-24.6,M,,")
        let fix = try #require(decode(text).observations.fixes.first).0
        #expect(fix.satellitesUsed == 9)
        // A GGA counting more than the GSAs list (they hold 12 at most) is believed.
        let many = nmea("GPRMC,113258,A,3238.9148,N,10822.4466,W,005.3,247.1,181022,009.3,E")
            + nmea("GPGSA,A,3,02,05,11,12,18,20,,,,,,,1.4,1.1,0.9")
            + nmea("GPGGA,113258,3238.9148,N,10822.4466,W,1,14,1.1,1577.4,M,-24.6,M,,")
        #expect(try #require(decode(many).observations.fixes.first).0.satellitesUsed == 14)
    }

    @Test func oneCycleMergesIntoOneFix() throws {
        let (obs, st) = decode(Self.cycle, options: .init(source: "gps0"))
        let fixes = obs.fixes
        try #require(fixes.count == 1)
        let (f, t) = fixes[0]
        #expect(t == EventTime(iso8601: "2022-10-18T11:32:58Z"))
        #expect(f.source == "gps0")
        #expect(f.mode == .threeD)
        #expect(f.quality == .dgps)
        #expect(abs(f.latitude! - 32.64858) < 1e-9 && abs(f.longitude! + 108.37411) < 1e-9)
        #expect(f.altitudeMSL == 1577.4)
        #expect(abs(f.altitudeHAE! - 1552.8) < 1e-9)
        #expect(abs(f.speed! - 5.3 * 1852 / 3600) < 1e-12)
        #expect(f.course == 247.1 && f.heading == nil)
        #expect(f.satellitesUsed == 8 && f.hdop == 1.1 && f.vdop == 0.9 && f.pdop == 1.4)
        #expect(abs(f.horizontalAccuracy! - 1.1 * NMEAUnits.userEquivalentRangeError) < 1e-12)
        #expect(abs(f.verticalAccuracy! - 0.9 * NMEAUnits.userEquivalentRangeError) < 1e-12)
        #expect(st.proprietary == 1)
        #expect(st.fixes == 1 && st.skyViews == 1)
    }

    @Test func skyViewFlagsUsedSatellites() throws {
        let sky = decode(Self.cycle).observations.skies
        try #require(sky.count == 1)
        let sats = sky[0].0.satellites
        #expect(sats.count == 11)
        #expect(sats.filter(\.used).map(\.prn) == [2, 5, 11, 12, 18, 20, 25, 29])
        #expect(sats.allSatisfy { $0.constellation == "gps" && $0.signal == nil })
        #expect(sats[0].elevation == 60 && sats[0].azimuth == 319 && sats[0].snr == 36)
    }

    @Test func signalIdsAndConstellationsFromNMEA411() throws {
        let text = nmea("GNRMC,120213.000,A,5957.0062,N,01100.6429,E,0.00,0.00,310722,,,D,V")
            + nmea("GNGSA,A,3,68,69,,,,,,,,,,,1.5,1.3,1.0,2")
            + nmea("GLGSV,1,1,02,68,10,100,30,69,20,200,31,1")
            + nmea("GAGSV,1,1,01,05,30,050,40,7")
            + nmea("PQGSV,1,1,01,193,50,120,35,1")
        let sky = try #require(decode(text).observations.skies.first).0.satellites
        #expect(sky.map(\.constellation) == ["glonass", "glonass", "galileo", "qzss"])
        #expect(sky.map(\.signal) == ["G1C/A", "G1C/A", "L1-BC", "L1C/A"])
        #expect(sky.map(\.used) == [true, true, false, false])
    }

    @Test func gstGivesRootSumSquareHorizontalAccuracy() throws {
        let text = nmea("GNRMC,181141.00,A,5957.0062,N,01100.6429,E,0.00,0.00,310722,,,A,V")
            + nmea("GNGGA,181141.00,5957.0062,N,01100.6429,E,1,08,0.9,10.0,M,20.0,M,,")
            + nmea("GNGST,181141.00,46,,,,4.7,1.9,5.3")
        let f = try #require(decode(text).observations.fixes.first).0
        #expect(abs(f.horizontalAccuracy! - (4.7 * 4.7 + 1.9 * 1.9).squareRoot()) < 1e-12)
        #expect(f.verticalAccuracy == 5.3)
    }

    @Test func headingIsKeptApartFromCourse() throws {
        let text = nmea("GPRMC,120000,A,4221.4394,N,01321.9948,E,001.0,090.0,150305,,") + nmea("HEHDT,274.07,T")
        let f = try #require(decode(text).observations.fixes.first).0
        #expect(f.course == 90 && f.heading == 274.07)
    }

    @Test func midnightRolloverAdvancesTheDate() {
        let text = nmea("GPRMC,235959,A,4221.4394,N,01321.9948,E,0,0,311224,,")
            + nmea("GPGGA,000000,4221.4394,N,01321.9948,E,1,05,1.0,10.0,M,,M,,")
            + nmea("GPGGA,000001,4221.4394,N,01321.9948,E,1,05,1.0,10.0,M,,M,,")
        let (obs, st) = decode(text)
        #expect(obs.fixes.map(\.1) == ["2024-12-31T23:59:59Z", "2025-01-01T00:00:00Z", "2025-01-01T00:00:01Z"]
            .map { EventTime(iso8601: $0)! })
        #expect(st.midnightRollovers == 1)
    }

    @Test func theFallbackDateAlsoRollsOverAtMidnight() {
        let text = nmea("GPGGA,235959,3349.0337,S,01843.9282,E,1,07,02.31,000115.4,M,0033.3,M,,")
            + nmea("GPGGA,000000,3349.0337,S,01843.9282,E,1,07,02.31,000115.4,M,0033.3,M,,")
        let (obs, st) = decode(text, options: .init(fallbackDate: EventTime(iso8601: "2010-10-25T00:00:00Z")))
        #expect(obs.fixes.map(\.1) == [EventTime(iso8601: "2010-10-25T23:59:59Z")!, EventTime(iso8601: "2010-10-26T00:00:00Z")!])
        #expect(st.fixesWithFallbackDate == 2)
    }

    @Test func zdaDatesAnEpochAndRMCVDoesNotGiveAPosition() {
        let text = nmea("GPRMC,235959.00,V,0000.0000,N,00000.0000,E,,,250910,,,N") + nmea("GPZDA,235959.00,25,09,2010,00,00")
        let f = decode(text).observations.fixes
        #expect(f.count == 1)
        #expect(f.first?.0.mode == Fix.Mode.none && f.first?.0.latitude == nil)
        #expect(f.first?.1 == EventTime(iso8601: "2010-09-25T23:59:59Z"))
    }

    @Test func withoutADateFixesAreDroppedUnlessAFallbackIsGiven() {
        let text = nmea("GPGGA,222449,3349.0337,S,01843.9282,E,1,07,02.31,000115.4,M,0033.3,M,,")
            + nmea("GPGGA,222450,3349.0337,S,01843.9282,E,1,07,02.31,000115.4,M,0033.3,M,,")
        var (obs, st) = decode(text)
        #expect(obs.fixes.isEmpty)
        #expect(st.fixesWithoutDate == 2 && !st.usedFallbackDate)
        (obs, st) = decode(text, options: .init(fallbackDate: EventTime(iso8601: "2010-10-25T13:00:00Z")))
        #expect(obs.fixes.map(\.1) == [EventTime(iso8601: "2010-10-25T22:24:49Z")!, EventTime(iso8601: "2010-10-25T22:24:50Z")!])
        #expect(st.fixesWithFallbackDate == 2 && st.usedFallbackDate)
    }

    @Test func gsa2DKeepsTheFix2DAndDropsTheAssumedAltitude() throws {
        let text = nmea("GPGGA,171245.00,5209.7838,N,02048.4819,E,1,03,5.3,76.6,M,36.5,M,,")
            + nmea("GPGSA,A,2,02,04,27,,,,,,,,,,,5.3,") + nmea("GPZDA,171245.00,08,04,2005,,")
        let f = try #require(decode(text).observations.fixes.first).0
        #expect(f.mode == .twoD && f.altitudeMSL == nil && f.satellitesUsed == 3)
    }

    @Test func gsa2DWithManySatellitesAndAnAltitudeIs3D() throws {
        // Quectel writes GSA fix type 2 while using 7 satellites and giving VDOP.
        let text = nmea("GPGGA,022037.00,3644.759429,S,17444.072851,E,1,06,1.1,56.0,M,37.0,M,,")
            + nmea("GPRMC,022037.00,A,3644.759429,S,17444.072851,E,0.0,301.9,071020,18.3,E,A,V")
            + nmea("GPGSA,A,2,06,07,11,19,22,28,30,,,,,,1.2,0.9,0.7,1")
        let f = try #require(decode(text).observations.fixes.first).0
        // GGA counts 6, GSA lists 7: the larger is taken (see satellitesUsedCountsEverySystemsGSA…).
        #expect(f.mode == .threeD && f.altitudeMSL == 56 && f.satellitesUsed == 7)
    }

    @Test func ggaQualityMapsToFixQuality() {
        let expected: [Int: Fix.Quality] = [1: .gps, 2: .dgps, 3: .pps, 4: .rtkFixed, 5: .rtkFloat,
                                            6: .deadReckoning, 7: .manual, 8: .simulated]
        for (q, quality) in expected {
            let text = nmea("GPGGA,120000,4221.4394,N,01321.9948,E,\(q),05,1.0,10.0,M,,M,,") + nmea("GPZDA,120000,01,01,2024,,")
            #expect(decode(text).observations.fixes.first?.0.quality == quality)
        }
    }
}
