import Foundation
import LocusCore
import Testing
@testable import LocusFormats

@Suite struct NMEALogReaderTests {
    /// gpsd's TPVs for the log, from its `.chk` file, by time of day (gpsd dates this log in 2034).
    func gpsdTPVs() throws -> [Int64: [String: Any]] {
        let json = try FormatFixtures.text("bu353s4.log.chk").split(whereSeparator: \.isNewline).filter { $0.hasPrefix("{\"class\":\"TPV\"") }
        var byTime: [Int64: [String: Any]] = [:]
        for o in try foundationObjects(json.joined(separator: "\n")) {
            guard let t = (o["time"] as? String).flatMap(EventTime.init(iso8601:)) else { continue }
            byTime[timeOfDay(t)] = o // the last report of the epoch is the complete one
        }
        return byTime
    }

    @Test func fixesAgreeWithGpsd() throws {
        let (obs, decoder) = try FormatFixtures.decode("bu353s4.log")
        #expect(decoder.format == .nmea)
        let fixes = obs.compactMap { o in o.fix.map { ($0, o.time, o.topic) } }
        let tpvs = try gpsdTPVs()
        #expect(tpvs.count == 25)
        #expect(fixes.count == 25)
        #expect(decoder.statistics.fixes == 25)
        for (fix, time, topic) in fixes {
            #expect(topic == "obs.fix.gps0")
            #expect(fix.source == "gps0")
            // RMC date 311214.
            #expect(time.iso8601.hasPrefix("2014-12-31T03:07:"))
            let tpv = try #require(tpvs[timeOfDay(time)], "no gpsd TPV at \(time)")
            #expect(fix.mode == .threeD)
            #expect(near(fix.latitude, tpv["lat"] as? Double, 1e-8))
            #expect(near(fix.longitude, tpv["lon"] as? Double, 1e-8))
            #expect(near(fix.altitudeMSL, tpv["altMSL"] as? Double, 1e-6))
            #expect(near(fix.altitudeHAE, tpv["altHAE"] as? Double, 1e-6))
            #expect(near(fix.speed, tpv["speed"] as? Double, 0.001))
        }
        // Observations come out in time order.
        #expect(obs.map(\.time) == obs.map(\.time).sorted())
    }

    @Test func skyViews() throws {
        let (obs, decoder) = try FormatFixtures.decode("bu353s4.log")
        let skies = obs.compactMap(\.sky)
        // Five complete GSV sequences in the log.
        #expect(skies.count == 5)
        #expect(decoder.statistics.skyViews == 5)
        let first = try #require(skies.first)
        #expect(first.satellites.count == 12)
        #expect(first.satellites.first { $0.prn == 17 }?.elevation == 72)
        #expect(first.satellites.first { $0.prn == 17 }?.snr == 32)
        #expect(obs.first { $0.sky != nil }?.topic == "obs.sky.gps0")

        let (noSky, _) = try FormatFixtures.decode("bu353s4.log", options: .init(includeSky: false))
        #expect(noSky.allSatisfy { $0.fix != nil })
        #expect(noSky.count == 25)
    }

    @Test func sourceOption() throws {
        let (obs, _) = try FormatFixtures.decode("bu353s4.log", options: .init(source: "boat"))
        #expect(obs.allSatisfy { $0.topic.hasSuffix(".boat") })
        #expect(obs.compactMap(\.fix).allSatisfy { $0.source == "boat" })
    }

    /// The log without RMC sentences has no date.
    func undatedLog() throws -> [UInt8] {
        let text = try FormatFixtures.text("bu353s4.log")
        return Array(text.split(whereSeparator: \.isNewline)
            .filter { !$0.hasPrefix("$GPRMC") }.joined(separator: "\n").utf8)
    }

    @Test func noDateNoGuess() throws {
        let (obs, decoder) = try FormatFixtures.decode(bytes: try undatedLog(), format: .nmea)
        #expect(obs.compactMap(\.fix).isEmpty)
        #expect(decoder.statistics[detail: "undated_epochs_dropped"] > 0)
        #expect(decoder.warnings.contains { $0.contains("--date") })
    }

    @Test func fallbackDate() throws {
        let day = try #require(EventTime(iso8601: "2014-12-31T00:00:00Z"))
        let (obs, decoder) = try FormatFixtures.decode(bytes: try undatedLog(), format: .nmea,
                                                       options: .init(fallbackDate: day))
        let fixes = obs.filter { $0.fix != nil }
        #expect(fixes.count == 25)
        #expect(fixes.first?.time == EventTime(iso8601: "2014-12-31T03:07:19Z"))
        #expect(decoder.warnings.isEmpty)
        #expect(decoder.statistics[detail: "fallback_dated_epochs"] == 25)
    }
}
