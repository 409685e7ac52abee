import Foundation
import LocusCore
import Testing
@testable import LocusFormats

/// A track point found by plain text search (an independent reading of the GPX files, which
/// GPSBabel writes one element per line).
struct TextPoint {
    var lat: Double
    var lon: Double
    var ele: Double?
    var time: String?

    static func all(in text: String) -> [TextPoint] {
        text.components(separatedBy: "<trkpt ").dropFirst().map { chunk in
            let body = chunk.components(separatedBy: "</trkpt>")[0]
            func attribute(_ name: String) -> Double {
                let v = body.components(separatedBy: name + "=\"")[1].components(separatedBy: "\"")[0]
                return Double(v)!
            }
            func element(_ name: String) -> String? {
                let parts = body.components(separatedBy: "<\(name)>")
                return parts.count > 1 ? parts[1].components(separatedBy: "</\(name)>")[0] : nil
            }
            return TextPoint(lat: attribute("lat"), lon: attribute("lon"), ele: element("ele").flatMap(Double.init), time: element("time"))
        }
    }
}

@Suite struct GPXReaderTests {
    @Test(arguments: [("cerknicko-jezero.gpx", 296, 296), ("korita-zbevnica.gpx", 871, 513)])
    func trackPoints(_ name: String, _ points: Int, _ timed: Int) throws {
        let expected = TextPoint.all(in: try FormatFixtures.text(name))
        #expect(expected.count == points)
        let withTime = expected.filter { $0.time != nil }
        #expect(withTime.count == timed)

        let (obs, decoder) = try FormatFixtures.decode(name)
        #expect(decoder.format == .gpx)
        #expect(obs.count == timed)
        #expect(decoder.statistics.fixes == timed)
        #expect(decoder.statistics[detail: "points"] == points)
        #expect(decoder.statistics[detail: "points_without_time"] == points - timed)
        for (o, p) in zip(obs, withTime) {
            let f = try #require(o.fix)
            #expect(o.topic == "obs.fix.gps0")
            #expect(o.time == EventTime(iso8601: p.time!))
            #expect(f.latitude == p.lat && f.longitude == p.lon)
            #expect(f.altitudeMSL == p.ele)
            #expect(f.mode == (p.ele == nil ? .twoD : .threeD))
        }
    }

    @Test func firstPointOfCerknica() throws {
        let (obs, _) = try FormatFixtures.decode("cerknicko-jezero.gpx")
        let o = try #require(obs.first)
        let text = try FormatFixtures.text("cerknicko-jezero.gpx")
        // The first <trkpt> of the file, read by eye.
        let first = text.components(separatedBy: "<trkpt ")[1].components(separatedBy: "</trkpt>")[0]
        #expect(first.contains("lat=\"\(o.fix!.latitude!)"))
        #expect(first.contains("<time>\(o.time.iso8601.replacingOccurrences(of: ".000Z", with: "Z"))</time>"))
    }

    static let gpx11 = """
    <?xml version="1.0" encoding="UTF-8"?>
    <gpx version="1.1" creator="test" xmlns="http://www.topografix.com/GPX/1/1"
         xmlns:gpxtpx="http://www.garmin.com/xmlschemas/TrackPointExtension/v2">
      <metadata><time>2020-01-01T00:00:00Z</time></metadata>
      <wpt lat="1" lon="2"><time>2020-01-01T00:00:00Z</time></wpt>
      <trk><name>t</name><trkseg>
        <trkpt lat="48.1" lon="11.5">
          <ele>520.5</ele><time>2020-06-01T10:00:00.250Z</time><sat>7</sat><hdop>0.9</hdop><fix>3d</fix>
          <extensions><gpxtpx:TrackPointExtension><gpxtpx:hr>120</gpxtpx:hr>
            <gpxtpx:speed>3.5</gpxtpx:speed><gpxtpx:course>270.0</gpxtpx:course>
          </gpxtpx:TrackPointExtension></extensions>
        </trkpt>
        <trkpt lat="48.2" lon="11.6"><ele>521</ele></trkpt>
        <trkpt lat="48.3" lon="11.7"><time>2020-06-01T12:00:00+02:00</time><extensions><speed>1.25</speed></extensions></trkpt>
        <trkpt lat="95" lon="11.7"><time>2020-06-01T10:00:03Z</time></trkpt>
      </trkseg></trk>
      <rte><rtept lat="-1.5" lon="-2.5"><time>2020-06-01T10:00:04Z</time><fix>dgps</fix></rtept></rte>
    </gpx>
    """

    @Test func gpx11Extensions() throws {
        let (obs, decoder) = try FormatFixtures.decode(bytes: Array(Self.gpx11.utf8), options: .init(source: "hike"))
        #expect(obs.count == 3)
        let a = try #require(obs[0].fix)
        #expect(obs[0].time == EventTime(iso8601: "2020-06-01T10:00:00.250Z"))
        #expect(obs[0].topic == "obs.fix.hike" && a.source == "hike")
        #expect(a.mode == .threeD && a.altitudeMSL == 520.5 && a.satellitesUsed == 7 && a.hdop == 0.9)
        #expect(a.speed == 3.5 && a.course == 270)
        let b = try #require(obs[1].fix)
        #expect(obs[1].time == EventTime(iso8601: "2020-06-01T10:00:00Z"))
        #expect(b.mode == .twoD && b.speed == 1.25 && b.altitudeMSL == nil && b.course == nil)
        let c = try #require(obs[2].fix)
        #expect(c.latitude == -1.5 && c.quality == .dgps)
        #expect(decoder.statistics[detail: "points"] == 5)
        #expect(decoder.statistics[detail: "points_without_time"] == 1)
        #expect(decoder.statistics[detail: "points_bad_coordinates"] == 1)
        #expect(decoder.statistics[detail: "waypoints_ignored"] == 1)
    }

    @Test func gpx10SpeedAndCourse() throws {
        let text = """
        <?xml version="1.0"?>
        <gpx version="1.0" xmlns="http://www.topografix.com/GPX/1/0"><trk><trkseg>
        <trkpt lat="10" lon="20"><time>2001-02-03T04:05:06Z</time><course>12.5</course><speed>4.25</speed></trkpt>
        </trkseg></trk></gpx>
        """
        let (obs, _) = try FormatFixtures.decode(bytes: Array(text.utf8))
        #expect(obs.count == 1)
        #expect(obs[0].fix?.speed == 4.25 && obs[0].fix?.course == 12.5)
    }

    @Test(arguments: [
        // Truncated.
        "<?xml version=\"1.0\"?><gpx><trk><trkseg><trkpt lat=\"1\" lon=\"2\"><time>2001-02-03T04:05:06Z</time></trkpt>",
        // Mismatched tags.
        "<?xml version=\"1.0\"?><gpx><trk><trkseg></trk></trkseg></gpx>",
        // Not GPX.
        "<?xml version=\"1.0\"?><kml></kml>",
    ])
    func malformedXMLThrows(_ text: String) {
        #expect(throws: FormatInputError.self) {
            _ = try FormatFixtures.decode(bytes: Array(text.utf8))
        }
    }

    /// Hostile and broken GPX: each is an error value. The first is the file that killed the
    /// process with SIGILL inside Foundation's XMLParser (invalid UTF-8 in an element name).
    @Test(arguments: [
        [UInt8]("<?xml version=\"1.0\"?><gpx version=\"1.1\"><trk".utf8) + [0xC3, 0x28] + [UInt8]("/></gpx>".utf8),
        [UInt8]("<gpx><trkpt lat=\"1\" lon=\"2\"><time>".utf8) + [0xFF, 0xFE] + [UInt8]("</time></trkpt></gpx>".utf8),
        [UInt8]("<gpx><trkpt lat=\"".utf8) + [0xE2, 0x82] + [UInt8]("\" lon=\"1\"/></gpx>".utf8),
        Array("<gpx><trk a=\"1\" a2='2' b=3></trk></gpx>".utf8),
        Array("<gpx><trkpt lat=\"1\" lon=\"2\"><ele>&bogus;</ele></trkpt></gpx>".utf8),
        Array("<gpx><trkpt lat=\"1\" lon=\"2\"><time>&#xD800;</time></trkpt></gpx>".utf8),
        Array("<gpx></gpx><gpx></gpx>".utf8),
        Array("<gpx><!-- unterminated comment".utf8),
        Array("<gpx><![CDATA[ never closed".utf8),
        Array("<gpx><".utf8),
        Array("<gpx>< trk/></gpx>".utf8),
        Array("<gpx><\"q\"/></gpx>".utf8),
        Array("".utf8),
        [0x00, 0x01, 0x02, 0x3C, 0x67, 0x70, 0x78],
        Array(String(repeating: "<a>", count: 10_000).utf8),
        Array(("<gpx><trk " + String(repeating: "x", count: 70_000) + "/></gpx>").utf8),
        Array(("<gpx><trkpt lat=\"1\" lon=\"2\"><time>" + String(repeating: "9", count: 70_000) + "</time></trkpt></gpx>").utf8),
    ])
    func hostileInputIsAnErrorValue(_ bytes: [UInt8]) {
        #expect(throws: FormatInputError.self) {
            var reader = GPXReader()
            try reader.read(ByteInput(bytes: bytes)) { _ in }
        }
    }

    @Test func commentsCDATAEntitiesAndDoctypeAreRead() throws {
        let text = """
        <?xml version="1.0"?>
        <!DOCTYPE gpx [ <!ELEMENT gpx ANY> ]>
        <!-- a comment with <trkpt> inside -->
        <gpx version="1.1" creator="A &amp; B &#x263A;"><trk><trkseg>
        <trkpt lat='45.5' lon="14.25"><ele><![CDATA[512.5]]></ele><time>2020-01-01T00:00:0&#49;Z</time></trkpt>
        <trkpt lat="45.6" lon="14.26"/>
        </trkseg></trk></gpx>
        """
        let (obs, decoder) = try FormatFixtures.decode(bytes: Array(text.utf8))
        #expect(obs.count == 1)
        #expect(obs.first?.fix?.altitudeMSL == 512.5)
        #expect(obs.first?.time == EventTime(iso8601: "2020-01-01T00:00:01Z"))
        #expect(decoder.statistics[detail: "points"] == 2)
    }

    @Test func largeFileStreams() throws {
        // ~5 MB of points through a file: crosses many 64 KiB chunks.
        var text = "<?xml version=\"1.0\"?>\n<gpx version=\"1.1\"><trk><trkseg>\n"
        let n = 40_000
        for i in 0..<n {
            text += "<trkpt lat=\"45.\(i)\" lon=\"14.5\"><ele>\(i % 1000)</ele><time>2020-01-01T\(String(format: "%02d:%02d:%02d", i / 3600 % 24, i / 60 % 60, i % 60))Z</time></trkpt>\n"
        }
        text += "</trkseg></trk></gpx>\n"
        let path = FormatFixtures.temporaryFile(text, suffix: ".gpx")
        defer { try? FileManager.default.removeItem(atPath: path) }
        var count = 0
        var last: RecordedObservation?
        var d = RecordingDecoder()
        try d.decode(try ByteInput(path: path)) { count += 1; last = $0 }
        #expect(count == n)
        #expect(last?.fix?.latitude == Double("45.\(n - 1)"))
    }
}
