import Foundation
import LocusCore
import Testing
@testable import LocusFormats

@Suite struct GpsdJSONReaderTests {
    @Test func everyTimedTPVBecomesAFix() throws {
        let (obs, decoder) = try FormatFixtures.decode("bu353s4.gpsd.jsonl")
        #expect(decoder.format == .gpsd)
        let reports = try foundationObjects(try FormatFixtures.text("bu353s4.gpsd.jsonl"))
        let tpvs = reports.filter { $0["class"] as? String == "TPV" && $0["time"] != nil }
        let fixes = obs.filter { $0.fix != nil }
        #expect(tpvs.count == 25)
        #expect(fixes.count == tpvs.count)
        #expect(decoder.statistics[detail: "tpv_without_time"] == 2)
        // The latest SKY before each TPV gives the DOPs.
        var hdop: Double?
        var k = 0
        for r in reports {
            if r["class"] as? String == "SKY" { hdop = r["hdop"] as? Double; continue }
            guard r["time"] != nil else { continue }
            let o = fixes[k]
            k += 1
            let f = try #require(o.fix)
            #expect(o.time == EventTime(iso8601: r["time"] as! String))
            #expect(o.topic == "obs.fix.gps0")
            #expect(f.mode == .threeD)
            #expect(f.quality == .gps)
            #expect(near(f.latitude, r["lat"] as? Double, 1e-9))
            #expect(near(f.longitude, r["lon"] as? Double, 1e-9))
            #expect(near(f.altitudeMSL, r["altMSL"] as? Double, 1e-9))
            #expect(near(f.altitudeHAE, r["altHAE"] as? Double, 1e-9))
            #expect(near(f.speed, r["speed"] as? Double, 1e-9))
            #expect(near(f.course, r["track"] as? Double, 1e-9))
            // 95 % → 1-sigma: eph / sqrt(-2 ln 0.05), epv / 1.96.
            #expect(near(f.horizontalAccuracy, (r["eph"] as? Double).map { $0 / (-2 * log(0.05)).squareRoot() }, 1e-6))
            #expect(near(f.verticalAccuracy, (r["epv"] as? Double).map { $0 / 1.959964 }, 1e-5))
            #expect(near(f.speedAccuracy, (r["eps"] as? Double).map { $0 / 1.959964 }, 1e-5))
            #expect(f.hdop == hdop)
        }
    }

    @Test func firstFixValues() throws {
        let (obs, _) = try FormatFixtures.decode("bu353s4.gpsd.jsonl")
        let o = try #require(obs.first)
        let f = try #require(o.fix)
        #expect(o.time == EventTime(iso8601: "2034-08-16T03:07:19Z"))
        #expect(f.latitude == -37.784788333)
        #expect(f.longitude == 175.314896667)
        #expect(f.altitudeMSL == 59.9)
        #expect(f.altitudeHAE == 83.6)
        #expect(f.speed == 0.355)
        #expect(f.course == 181.39)
        #expect(near(f.horizontalAccuracy, 8.5386, 1e-3))
        #expect(near(f.verticalAccuracy, 17.6024, 1e-3))
        #expect(f.hdop == nil) // no SKY yet
    }

    @Test func skyReports() throws {
        let (obs, decoder) = try FormatFixtures.decode("bu353s4.gpsd.jsonl")
        let skies = obs.filter { $0.sky != nil }
        #expect(skies.count == 5)
        #expect(decoder.statistics.skyViews == 5)
        let first = try #require(skies.first)
        let sky = try #require(first.sky)
        #expect(first.topic == "obs.sky.gps0")
        // SKY lines of gpsd 3.22 carry no time: the previous TPV's is used.
        #expect(first.time == EventTime(iso8601: "2034-08-16T03:07:20Z"))
        #expect(sky.satellites.count == 12)
        #expect(sky.satellites.filter(\.used).count == 8)
        let s8 = try #require(sky.satellites.first { $0.prn == 8 })
        #expect(s8.snr == nil) // ss 0: no signal
        #expect(s8.elevation == 38 && s8.azimuth == 8 && !s8.used && s8.constellation == "gps")
        #expect(sky.satellites.first { $0.prn == 17 }?.snr == 32)
        // Fixes after the SKY carry its DOPs and used count.
        let later = try #require(obs.last?.fix)
        #expect(later.satellitesUsed != nil && later.pdop != nil)
    }

    @Test func otherReportsAndBadLines() throws {
        let text = """
        {"class":"VERSION","release":"3.22","proto_major":3,"proto_minor":14}
        {"class":"DEVICES","devices":[{"class":"DEVICE","path":"/dev/pts/3"}]}
        not json
        {"class":"TPV","device":"/dev/pts/3","mode":1,"time":"2024-05-17T08:00:00.000Z"}
        {"class":"TPV","mode":2,"status":2,"time":1715932801.5,"lat":1.5,"lon":2.5,"epx":3,"epy":4}
        {"class":"PPS","device":"/dev/pts/3"}
        """
        let (obs, decoder) = try FormatFixtures.decode(bytes: Array(text.utf8))
        #expect(obs.count == 2)
        #expect(obs[0].fix?.mode == Fix.Mode.none)
        #expect(obs[0].fix?.latitude == nil)
        let f = try #require(obs[1].fix)
        #expect(obs[1].time == EventTime(iso8601: "2024-05-17T08:00:01.500Z"))
        #expect(f.mode == .twoD && f.quality == .dgps)
        #expect(near(f.horizontalAccuracy, (12.5).squareRoot() / 1.959964, 1e-5))
        #expect(decoder.statistics[detail: "bad_lines"] == 1)
        #expect(decoder.statistics[detail: "other_reports"] == 3)
    }

    /// Found by the gpsd reader's fuzz target: a TPV whose `lon` was mangled to 17543.19 was
    /// emitted as a fix, a position off the globe that no subscriber can read back. Now a bad
    /// line, counted.
    @Test func aPositionOffTheGlobeIsABadLine() throws {
        let text = """
        {"class":"TPV","mode":3,"time":"2024-05-17T08:00:00.000Z","lat":-37.784796667,"lon":17543.1893333}
        {"class":"TPV","mode":3,"time":"2024-05-17T08:00:01.000Z","lat":91,"lon":175.3}
        {"class":"TPV","mode":3,"time":"2024-05-17T08:00:02.000Z","lat":-37.78,"lon":175.3}
        """
        let (obs, decoder) = try FormatFixtures.decode(bytes: Array(text.utf8))
        #expect(obs.count == 1)
        #expect(obs.first?.fix?.longitude == 175.3)
        #expect(decoder.statistics[detail: "bad_lines"] == 2)
    }

    /// Found by the gpsd fuzz target's 10-minute run: a numeric `time` past Int64 milliseconds
    /// trapped converting it ("Double value cannot be converted to Int64"), in `locus decode`
    /// and in the live gpsd source alike. Now a bad line.
    @Test func aNumericTimeOutOfRangeIsABadLine() throws {
        let text = """
        {"class":"TPV","mode":2,"time":1e300,"lat":1.5,"lon":2.5}
        {"class":"TPV","mode":2,"time":-9.3e15,"lat":1.5,"lon":2.5}
        {"class":"TPV","mode":2,"time":1715932801.5,"lat":1.5,"lon":2.5}
        """
        let (obs, decoder) = try FormatFixtures.decode(bytes: Array(text.utf8))
        #expect(obs.count == 1)
        #expect(decoder.statistics[detail: "bad_lines"] == 2)
    }
}
