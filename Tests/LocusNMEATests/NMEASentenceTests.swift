import Testing
@testable import LocusNMEA

/// One test per sentence type, with sentences taken from the gpsd logs (checksums recomputed
/// only where a field was changed).
@Suite struct NMEASentenceTests {
    @Test func gga() {
        let g = withSentence("GPGGA,113258,3238.9148,N,10822.4466,W,2,08,1.1,1577.4,M,-24.6,M,,") { GGA($0) }
        #expect(g.time == (11 * 3600 + 32 * 60 + 58) * 1000)
        #expect(abs(g.latitude! - 32.64858) < 1e-9)
        #expect(abs(g.longitude! - -108.37411) < 1e-9)
        #expect(g.quality == 2)
        #expect(g.satellites == 8)
        #expect(g.hdop == 1.1)
        #expect(g.altitudeMSL == 1577.4)
        #expect(g.geoidSeparation == -24.6)
    }

    @Test func ggaWithEmptyFieldsIsAllNil() {
        let g = withSentence("GPGGA,,,,,,0,,,,M,,M,,") { GGA($0) }
        #expect(g.time == nil && g.latitude == nil && g.longitude == nil && g.altitudeMSL == nil && g.hdop == nil)
        #expect(g.quality == 0)
    }

    @Test func rmcWithModeAndNavigationalStatus() {
        let r = withSentence("GNRMC,120213.000,A,5957.0062,N,01100.6429,E,0.00,0.00,310722,,,D,V") { RMC($0) }
        #expect(r.time == 43_333_000)
        #expect(r.status == UInt8(ascii: "A"))
        #expect(r.mode == UInt8(ascii: "D"))
        #expect(r.navigationalStatus == UInt8(ascii: "V"))
        #expect(r.date == NMEACalendar.days(year: 2022, month: 7, day: 31))
        #expect(r.speedKnots == 0)
    }

    @Test func rmcTwoDigitYears() {
        #expect(withSentence("GPRMC,000231.42,A,4829.0005,N,00022.0016,E,0.16,212.28,220899,,,A") { RMC($0) }.date
                == NMEACalendar.days(year: 1999, month: 8, day: 22))
        #expect(withSentence("GPRMC,000231.42,A,4829.0005,N,00022.0016,E,0.16,212.28,2208-1,,,A") { RMC($0) }.date == nil)
    }

    @Test func gllInvalidWithModeS() {
        let g = withSentence("GPGLL,3854.5087,N,07726.4523,W,125106,V,S") { GLL($0) }
        #expect(g.status == UInt8(ascii: "V"))
        #expect(g.mode == UInt8(ascii: "S"))
        #expect(g.time == (12 * 3600 + 51 * 60 + 6) * 1000)
    }

    @Test func gnsModeLettersPickTheBest() {
        let g = withSentence("GPGNS,112257.00,3844.24011,N,00908.43828,W,AN,03,10.5,,,,") { GNS($0) }
        #expect(g.mode == UInt8(ascii: "A"))
        #expect(g.satellites == 3)
        #expect(g.altitudeMSL == nil)
        #expect(withSentence("GNGNS,074150.799,,,,,NNNN,00,,,0.0,,0000") { GNS($0) }.mode == UInt8(ascii: "N"))
    }

    @Test func gsaWithSystemId() {
        let body = "GNGSA,A,3,68,69,70,78,84,85,,,,,,,1.5,1.3,1.0,2"
        let g = withSentence(body) { GSA($0) }
        #expect(g.fixType == 3 && g.pdop == 1.5 && g.hdop == 1.3 && g.vdop == 1.0 && g.systemId == 2)
        let prns = withSentence(body) { s -> [Int] in var p: [Int] = []; GSA.forEachPRN(s) { p.append($0) }; return p }
        #expect(prns == [68, 69, 70, 78, 84, 85])
        #expect(withSentence("GPGSA,A,3,02,05,11,12,18,20,25,29,,,,,1.4,1.1,0.9") { GSA($0) }.systemId == nil)
    }

    @Test func gsvWithSignalId() {
        let body = "GPGSV,3,1,12,05,06,110,19,10,24,284,34,13,37,124,29,15,63,083,11,1"
        let g = withSentence(body) { GSV($0) }
        #expect(g.messages == 3 && g.number == 1 && g.inView == 12 && g.groups == 4 && g.signalId == 1)
        let e = withSentence(body) { GSV.entry($0, 3) }
        #expect(e?.prn == 15 && e?.elevation == 63 && e?.azimuth == 83 && e?.snr == 11)
        let old = withSentence("GPGSV,3,3,11,06,01,064,00,13,09,132,00,15,10,164,00") { GSV($0) }
        #expect(old.signalId == nil && old.groups == 3)
    }

    @Test func vtgBothLayouts() {
        let v = withSentence("GPVTG,74.45,T,89.09,M,0.04,N,0.07,K,A") { VTG($0) }
        #expect(v.course == 74.45 && v.speedKnots == 0.04 && v.mode == UInt8(ascii: "A"))
        let old = withSentence("GPVTG,054.7,034.4,005.5,010.2") { VTG($0) }
        #expect(old.course == 54.7 && old.speedKnots == 5.5)
    }

    @Test func zdaGstHdt() {
        let z = withSentence("GNZDA,213712.000,12,02,2026,,") { ZDA($0) }
        #expect(z.date == NMEACalendar.days(year: 2026, month: 2, day: 12))
        let g = withSentence("GNGST,181141.00,46,,,,4.7,1.9,5.3") { GST($0) }
        #expect(g.sigmaLatitude == 4.7 && g.sigmaLongitude == 1.9 && g.sigmaAltitude == 5.3)
        #expect(withSentence("GPHDT,,T") { HDT($0) }.heading == nil)
        #expect(withSentence("HEHDT,274.07,T") { HDT($0) }.heading == 274.07)
    }

    @Test func extremeNumbersDoNotOverflow() {
        let long = "4807." + String(repeating: "0", count: 40) + "1"
        #expect(withSentence("GPGGA,123519,\(long),N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,") { GGA($0) }.latitude == 48 + 7.0 / 60)
        #expect(withSentence("GPGGA,123519,99999999999999999,N,01131.000,E,1,08,0.9,545.4,M,46.9,M,,") { GGA($0) }.latitude == nil)
        #expect(withSentence("GPGGA,123519,4807.038,N,01131.000,E,1,08,0.9,99999999999999999999999,M,46.9,M,,") { GGA($0) }.altitudeMSL == nil)
        #expect(withSentence("GPZDA,201530.00,04,07,99999999999999999,00,00") { ZDA($0) }.date == nil)
        #expect(withSentence("GPRMC,999999,A,4807.038,N,01131.000,E,022.4,084.4,320394,003.1,W") { RMC($0) }.time == nil)
        #expect(withSentence("GPRMC,123519,A,4807.038,N,01131.000,E,022.4,084.4,320394,003.1,W") { RMC($0) }.date == nil)
    }

    @Test func numbers() {
        func d(_ s: String) -> Double? { Array(s.utf8).withUnsafeBufferPointer { NMEANumber.double($0) } }
        #expect(d("") == nil && d("-") == nil && d("1.2.3") == nil && d("12a") == nil)
        #expect(d("-0.5") == -0.5 && d(" 12 ") == 12 && d("000115.4") == 115.4)
        func t(_ s: String) -> Int? { Array(s.utf8).withUnsafeBufferPointer { NMEANumber.timeOfDay($0) } }
        #expect(t("235960") == 86_400_000) // leap second
        #expect(t("246000") == nil && t("12") == nil && t("|19322|1.00") == nil)
    }
}
