import Foundation
import LocusCore
import Testing
@testable import LocusFormats

/// The gpsd mapping shared by the gpsd source and `locus decode`, through the reader (the
/// source's use of it is tested in Plugins/Gpsd/Tests).
@Suite struct GpsdObservationMapperTests {
    /// gpsd 3.27's output for `quectel-L70.log` (gpsd regression log, BSD-2-Clause), trimmed:
    /// SKYs with only DOPs between the partial TPVs of an epoch, GST after the epoch's TPVs.
    static let quectel = """
    {"class":"TPV","status":2,"mode":3,"time":"2022-03-09T15:01:19.000Z","lat":51.068098333,"lon":-114.095645000,"altMSL":1102.4000,"speed":0.046,"eph":9.5}
    {"class":"SKY","hdop":0.94,"uSat":8}
    {"class":"TPV","status":2,"mode":3,"time":"2022-03-09T15:01:19.000Z","lat":51.068098333,"lon":-114.095645000,"altMSL":1102.4000,"epv":4.370,"speed":0.046,"eph":9.5}
    {"class":"SKY","hdop":0.94,"pdop":1.21,"vdop":0.76,"uSat":8}
    {"class":"GST","time":"2022-03-09T15:01:19.000Z","rms":4.000,"major":8.700,"minor":4.700,"orient":132.300,"lat":6.800,"lon":7.200,"alt":14.000}
    {"class":"TPV","status":2,"mode":3,"time":"2022-03-09T15:01:19.000Z","lat":51.068098333,"lon":-114.095645000,"altMSL":1102.4000,"epv":4.370,"speed":0.046,"eph":9.5}
    {"class":"TPV","status":2,"mode":3,"time":"2022-03-09T15:01:20.000Z","lat":51.068098333,"lon":-114.095646667,"altMSL":1102.3000,"speed":0.067,"eph":9.5}
    """

    /// Newer gpsd sends SKYs without `satellites` when only the DOPs changed: they feed the
    /// fixes' DOPs but are no view of an empty sky. (The gpsd source published an empty sky view
    /// for each before the mapping was shared; the reader did not.)
    @Test func skyWithoutSatellitesGivesDOPsButNoSkyView() throws {
        let (obs, decoder) = try FormatFixtures.decode(bytes: Array(Self.quectel.utf8))
        #expect(obs.allSatisfy { $0.sky == nil })
        #expect(decoder.statistics.skyViews == 0 && decoder.statistics[detail: "sky_without_time"] == 0)
        let fixes = obs.compactMap(\.fix)
        #expect(fixes.count == 4)
        #expect(fixes[0].hdop == nil && fixes[0].satellitesUsed == nil)
        // Each fix has the DOPs of the SKY just before it, as a whole (a later SKY replaces).
        #expect(fixes[1].hdop == 0.94 && fixes[1].pdop == nil && fixes[1].satellitesUsed == 8)
        #expect(fixes[2].hdop == 0.94 && fixes[2].pdop == 1.21 && fixes[2].vdop == 0.76)
        #expect(fixes[2].quality == .dgps)
    }

    /// A GST refines the TPVs of its own epoch that come after it, and no others. (The reader
    /// ignored GST before the mapping was shared, so `locus decode` differed from the source.)
    @Test func gstRefinesTheAccuraciesOfItsEpochOnly() throws {
        let (obs, _) = try FormatFixtures.decode(bytes: Array(Self.quectel.utf8))
        let fixes = obs.compactMap(\.fix)
        // Before the GST: gpsd's 95 % figures as 1-sigma.
        #expect(near(fixes[1].horizontalAccuracy, 9.5 / (-2 * log(0.05)).squareRoot(), 1e-9))
        #expect(near(fixes[1].verticalAccuracy, 4.37 / 1.959964, 1e-5))
        // After the GST of 15:01:19: its 1-sigma lat/lon/alt errors.
        #expect(near(fixes[2].horizontalAccuracy, ((6.8 * 6.8 + 7.2 * 7.2) / 2).squareRoot(), 1e-12))
        #expect(fixes[2].verticalAccuracy == 14)
        // 15:01:20 is another epoch: the 15:01:19 GST does not apply.
        #expect(obs[3].time == EventTime(iso8601: "2022-03-09T15:01:20Z"))
        #expect(near(fixes[3].horizontalAccuracy, 9.5 / (-2 * log(0.05)).squareRoot(), 1e-9))
        #expect(fixes[3].verticalAccuracy == nil)
    }

    /// An explicit empty list is an empty sky: a view with no satellites, and none used.
    @Test func emptySatelliteListIsAnEmptySky() throws {
        let text = """
        {"class":"TPV","mode":1,"time":"2024-05-17T08:00:00.000Z"}
        {"class":"SKY","satellites":[]}
        {"class":"TPV","mode":2,"time":"2024-05-17T08:00:01.000Z","lat":1.5,"lon":2.5}
        """
        let (obs, _) = try FormatFixtures.decode(bytes: Array(text.utf8))
        #expect(obs.count == 3)
        #expect(obs[1].sky?.satellites.isEmpty == true)
        #expect(obs[1].time == EventTime(iso8601: "2024-05-17T08:00:00Z"))
        #expect(obs[2].fix?.satellitesUsed == 0)
    }

    /// gpsd always writes a PRN: a satellite without one makes the line unusable (counted),
    /// rather than a partial sky view with a wrong used count.
    @Test func satelliteWithoutPRNMakesTheLineBad() throws {
        let text = """
        {"class":"TPV","mode":1,"time":"2024-05-17T08:00:00.000Z"}
        {"class":"SKY","satellites":[{"PRN":3,"used":true},{"el":10,"used":true}]}
        {"class":"TPV","mode":2,"time":true,"lat":1.5,"lon":2.5}
        """
        let (obs, decoder) = try FormatFixtures.decode(bytes: Array(text.utf8))
        #expect(obs.count == 1)
        #expect(decoder.statistics[detail: "bad_lines"] == 2)
    }

    @Test func constellationsFromGnssIdOrPRN() {
        #expect(GpsdMapping.constellation(gnssid: 6, prn: 70) == "glonass")
        #expect(GpsdMapping.constellation(gnssid: 2, prn: 301) == "galileo")
        #expect(GpsdMapping.constellation(gnssid: nil, prn: 12) == "gps")
        #expect(GpsdMapping.constellation(gnssid: nil, prn: 70) == "glonass")
        #expect(GpsdMapping.constellation(gnssid: nil, prn: 133) == "sbas")
        #expect(GpsdMapping.constellation(gnssid: nil, prn: 195) == "qzss")
        #expect(GpsdMapping.constellation(gnssid: nil, prn: 210) == "beidou")
        #expect(GpsdMapping.constellation(gnssid: nil, prn: 310) == "galileo")
        #expect(GpsdMapping.constellation(gnssid: nil, prn: 999) == "unknown")
    }

    /// With a device set, other devices' reports are passed over, GST included.
    @Test func deviceFilterAppliesToEveryClass() throws {
        var m = GpsdObservationMapper(source: "gps0", device: "/dev/a")
        let lines = [
            "{\"class\":\"GST\",\"device\":\"/dev/b\",\"time\":\"2024-05-17T08:00:00Z\",\"lat\":1,\"lon\":1,\"alt\":1}",
            "{\"class\":\"SKY\",\"device\":\"/dev/b\",\"hdop\":9.9,\"satellites\":[]}",
            "{\"class\":\"TPV\",\"device\":\"/dev/b\",\"mode\":2,\"time\":\"2024-05-17T08:00:00Z\",\"lat\":1,\"lon\":2}",
            "{\"class\":\"TPV\",\"device\":\"/dev/a\",\"mode\":2,\"time\":\"2024-05-17T08:00:00Z\",\"lat\":1,\"lon\":2,\"eph\":2.4477468}",
        ]
        let outcomes = try lines.map { m.map(try GpsdDataReport.parse($0)) }
        #expect(outcomes.prefix(3).allSatisfy { $0 == .otherDevice })
        guard case .fix(let f, _) = outcomes[3] else { Issue.record("no fix: \(outcomes[3])"); return }
        #expect(f.hdop == nil)
        #expect(near(f.horizontalAccuracy, 1, 1e-6))
    }
}
