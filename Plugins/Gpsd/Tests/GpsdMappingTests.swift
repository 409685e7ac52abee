import Foundation
import LocusCore
import LocusFormats
@testable import LocusGpsdPlugin
import LocusTestKit
import Testing

/// What a fix should hold for a TPV of gpsd's output, computed here from the JSON objects
/// (parsed with Foundation, not the plugin's reader) by the formulas of the README.
struct ExpectedFix {
    var time: EventTime
    var mode: Fix.Mode
    var lat: Double?, lon: Double?, altMSL: Double?, altHAE: Double?, speed: Double?, course: Double?
    var h: Double?, v: Double?

    static func list(from objects: [[String: Any]]) -> [ExpectedFix] {
        var out: [ExpectedFix] = []
        var gst: [String: Any]?
        for o in objects {
            let cls = o["class"] as? String
            if cls == "GST" { gst = o; continue }
            guard cls == "TPV", let ts = o["time"] as? String else { continue }
            let mode = o["mode"] as? Int ?? 0
            var e = ExpectedFix(time: EventTime(iso8601: ts)!, mode: mode == 3 ? .threeD : mode == 2 ? .twoD : .none)
            guard mode >= 2 else { out.append(e); continue }
            func d(_ k: String) -> Double? { (o[k] as? NSNumber)?.doubleValue }
            e.lat = d("lat"); e.lon = d("lon")
            e.altMSL = d("altMSL") ?? d("alt"); e.altHAE = d("altHAE")
            e.speed = d("speed"); e.course = d("track")
            if let eph = d("eph") { e.h = eph / 2.4477468 }
            else if let x = d("epx"), let y = d("epy") { e.h = ((x * x + y * y) / 2).squareRoot() / 1.959964 }
            e.v = d("epv").map { $0 / 1.959964 }
            if let g = gst, g["time"] as? String == ts,
               let la = (g["lat"] as? NSNumber)?.doubleValue, let lo = (g["lon"] as? NSNumber)?.doubleValue {
                e.h = ((la * la + lo * lo) / 2).squareRoot()
                if let a = (g["alt"] as? NSNumber)?.doubleValue { e.v = a }
            }
            out.append(e)
        }
        return out
    }

    /// Compares within what the wire format keeps (9 digits for degrees, 3 for metres, 2 for course).
    func check(_ fix: Fix, time: EventTime, _ where_: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(time == self.time, "\(where_): time", sourceLocation: sourceLocation)
        #expect(fix.mode == mode, "\(where_): mode", sourceLocation: sourceLocation)
        #expect(near(fix.latitude, lat, 1e-9) && near(fix.longitude, lon, 1e-9), "\(where_): position \(String(describing: fix.latitude)),\(String(describing: fix.longitude)) vs \(String(describing: lat)),\(String(describing: lon))", sourceLocation: sourceLocation)
        #expect(near(fix.altitudeMSL, altMSL, 1.1e-3) && near(fix.altitudeHAE, altHAE, 1.1e-3), "\(where_): altitudes", sourceLocation: sourceLocation)
        #expect(near(fix.speed, speed, 1.1e-3), "\(where_): speed \(String(describing: fix.speed)) vs \(String(describing: speed))", sourceLocation: sourceLocation)
        #expect(near(fix.course, course, 1.1e-2), "\(where_): course", sourceLocation: sourceLocation)
        #expect(near(fix.horizontalAccuracy, h, 1.1e-3), "\(where_): h accuracy \(String(describing: fix.horizontalAccuracy)) vs \(String(describing: h))", sourceLocation: sourceLocation)
        #expect(near(fix.verticalAccuracy, v, 1.1e-3), "\(where_): v accuracy \(String(describing: fix.verticalAccuracy)) vs \(String(describing: v))", sourceLocation: sourceLocation)
    }
}

func runSession(_ lines: [String], device: String? = nil) -> (GpsdSession, [GpsdSession.Output], [GpsdSession.Note]) {
    var s = GpsdSession(source: "gps0", device: device)
    s.connectionStarted()
    var out: [GpsdSession.Output] = []
    var notes: [GpsdSession.Note] = []
    for l in lines { notes.append(s.handle(line: l, into: &out)) }
    return (s, out, notes)
}

@Suite struct GpsdMappingTests {
    static let recording = "gr8013-w.gpspipe.jsonl"

    @Test func recordedGpsdOutputMapsToTheFixesOfItsTPVs() throws {
        let lines = try Fixtures.lines(Self.recording)
        let (session, out, notes) = runSession(lines)
        let expected = ExpectedFix.list(from: try Fixtures.jsonObjects(Self.recording))
        // The recording and gpsd's regression output agree on the reports.
        #expect(expected.count == ExpectedFix.list(from: try Fixtures.jsonObjects("gr8013-w.log.chk")).count)
        #expect(expected.count == 7)
        let fixes = out.compactMap { o -> (Fix, EventTime)? in if case .fix(let f, let t) = o { return (f, t) }; return nil }
        try #require(fixes.count == expected.count)
        for (i, (f, t)) in fixes.enumerated() {
            #expect(f.source == "gps0")
            // Encode and decode as the bus does, so the comparison sees what subscribers see.
            let body = EnvelopeCodec.encode(Envelope(producer: "gps0", seq: 1, time: t, payload: f))
            let decoded = try EnvelopeCodec.decode(body, registry: .core)
            guard case .typed(let p) = decoded.payload, let wire = p as? Fix else { Issue.record("not a fix"); continue }
            expected[i].check(wire, time: decoded.time, "fix \(i)")
        }
        #expect(session.counters.malformed == 0)
        #expect(session.counters.tpvWithoutTime == 0)
        #expect(session.counters.fixesPublished == 7)
        #expect(notes.contains(.version("3.22 (protocol 3.14)")))
        #expect(notes.contains { if case .devices(let d) = $0 { return d.count == 1 }; return false })
    }

    /// gpsd's expected output for a second log (2D and 3D fixes, with track): its JSON lines
    /// through the session give the fixes its TPVs describe.
    @Test func regressionOutputOfASecondLogMapsToo() throws {
        let lines = try Fixtures.lines("tn204.log.chk").filter { $0.hasPrefix("{") }
        let (session, out, _) = runSession(lines)
        let expected = ExpectedFix.list(from: try Fixtures.jsonObjects("tn204.log.chk"))
        let fixes = out.compactMap { o -> (Fix, EventTime)? in if case .fix(let f, let t) = o { return (f, t) }; return nil }
        #expect(expected.count == 7 && fixes.count == expected.count)
        for (i, ((f, t), e)) in zip(fixes, expected).enumerated() { e.check(f, time: t, "tn204 fix \(i)") }
        #expect(fixes.first?.0.mode == .twoD && fixes.first?.0.course == 209.4)
        #expect(session.counters.malformed == 0)
    }

    @Test func gstOfTheSameEpochRefinesTheAccuracies() throws {
        let (_, out, _) = runSession(try Fixtures.lines(Self.recording))
        let fixes = out.compactMap { o -> (Fix, EventTime)? in if case .fix(let f, let t) = o { return (f, t) }; return nil }
        // 18:11:41, 3D, before that epoch's GST: eph 17.67 m (95 %) -> 7.219 m; epv 29.67 -> 15.138 m.
        let early = fixes[2]
        #expect(early.1.iso8601.hasSuffix("18:11:41.000Z") && early.0.mode == .threeD)
        #expect(abs(early.0.horizontalAccuracy! - 17.67 / 2.4477468) < 1e-6)
        #expect(abs(early.0.verticalAccuracy! - 29.67 / 1.959964) < 1e-5)
        // 18:11:42 comes after GST 18:11:42 (lat 4.7 m, lon 1.9 m, alt 5.3 m, 1-sigma).
        let refined = fixes.first { $0.1.iso8601.hasSuffix("18:11:42.000Z") }!
        #expect(abs(refined.0.horizontalAccuracy! - ((4.7 * 4.7 + 1.9 * 1.9) / 2).squareRoot()) < 1e-9)
        #expect(refined.0.verticalAccuracy == 5.3)
        #expect(abs(refined.0.speedAccuracy! - 9.40 / 1.959964) < 1e-5)
        #expect(refined.0.mode == .threeD)
        #expect(refined.0.quality == .gps)
        #expect(refined.0.altitudeMSL == 62.4 && refined.0.altitudeHAE == 104.5)
        // DOPs and satellites used from the latest SKY.
        #expect(refined.0.hdop == 0.93 && refined.0.pdop == 1.59 && refined.0.satellitesUsed == 19)
    }

    @Test func skyReportsMapToSkyViewsAtTheLastTPVTime() throws {
        let lines = try Fixtures.lines(Self.recording)
        let (session, out, _) = runSession(lines)
        let views = out.compactMap { o -> (SkyView, EventTime)? in if case .sky(let s, let t) = o { return (s, t) }; return nil }
        let skyObjects = try Fixtures.jsonObjects(Self.recording).filter { $0["class"] as? String == "SKY" }
        #expect(views.count == skyObjects.count)
        #expect(session.counters.skyWithoutTime == 0)
        for (v, o) in zip(views, skyObjects) {
            let sats = o["satellites"] as! [[String: Any]]
            #expect(v.0.satellites.count == sats.count)
            #expect(v.0.satellites.map(\.prn) == sats.map { $0["PRN"] as! Int })
            #expect(v.0.satellites.filter(\.used).count == o["uSat"] as? Int)
        }
        // The 24-satellite view: 14 GPS (gnssid 0) and 10 GLONASS (gnssid 6, PRN 65-96).
        let big = try #require(views.first { $0.0.satellites.count == 24 })
        #expect(big.0.satellites.filter { $0.constellation == "gps" }.count == 14)
        #expect(big.0.satellites.filter { $0.constellation == "glonass" }.count == 10)
        let s7 = try #require(big.0.satellites.first { $0.prn == 7 })
        #expect(s7.elevation == 13 && s7.azimuth == 306 && s7.snr == 37 && s7.used)
        // PRN 78 has an empty SNR field: gpsd reports 0, which is no measurement.
        let s78 = try #require(big.0.satellites.first { $0.prn == 78 })
        #expect(s78.snr == nil)
        #expect(big.1.iso8601.hasSuffix("18:11:41.000Z"))
    }

    @Test func malformedLinesAreCountedAndSkippedAndUnknownClassesIgnored() {
        let lines = [
            "not json",
            "{\"class\":\"TPV\",\"mode\":3",
            "[1,2,3]",
            "{\"mode\":3,\"time\":\"2024-01-01T00:00:00.000Z\"}",
            "{\"class\":\"TPV\",\"mode\":3,\"time\":\"yesterday\"}",
            "{\"class\":\"PPS\",\"device\":\"/dev/ttyS0\",\"real_sec\":1}",
            "{\"class\":\"TPV\",\"device\":\"/dev/ttyS0\",\"mode\":1}",
            "{\"class\":\"TPV\",\"device\":\"/dev/ttyS0\",\"mode\":1,\"time\":\"2024-01-01T00:00:01.000Z\",\"lat\":1.0,\"lon\":2.0}",
            "{\"class\":\"ERROR\",\"message\":\"Unrecognized request\"}",
            "",
            "{\"class\":\"TPV\",\"device\":\"/dev/ttyS0\",\"mode\":2,\"time\":\"2024-01-01T00:00:02.5Z\",\"lat\":46.05,\"lon\":14.5,\"status\":2,\"eph\":2.4477468}",
        ]
        let (s, out, notes) = runSession(lines)
        #expect(s.counters.malformed == 5)
        #expect(s.counters.ignored == 1)
        #expect(s.counters.tpvWithoutTime == 1)
        #expect(notes.contains(.gpsdError("Unrecognized request")))
        #expect(out.count == 2)
        if case .fix(let f, let t) = out[0] {
            // Mode 1: a fix of mode none, without the stale position.
            #expect(f.mode == .none && f.latitude == nil && f.longitude == nil)
            #expect(t == EventTime(iso8601: "2024-01-01T00:00:01Z"))
        } else { Issue.record("expected a fix") }
        if case .fix(let f, let t) = out[1] {
            #expect(f.mode == .twoD && f.latitude == 46.05 && f.quality == .dgps)
            #expect(abs(f.horizontalAccuracy! - 1) < 1e-6)
            #expect(f.altitudeMSL == nil && f.verticalAccuracy == nil)
            #expect(t.milliseconds % 1000 == 500)
        } else { Issue.record("expected a fix") }
    }

    @Test func deviceFilterKeepsOnlyTheConfiguredDevice() throws {
        let lines = try Fixtures.lines(Self.recording)
        let device = try #require(try Fixtures.jsonObjects(Self.recording).first { $0["class"] as? String == "TPV" }?["device"] as? String)
        let (other, otherOut, _) = runSession(lines, device: "/dev/ttyUSB9")
        #expect(otherOut.isEmpty)
        #expect(other.counters.otherDevice == other.counters.tpv + other.counters.sky + other.counters.gst)
        let (same, sameOut, _) = runSession(lines, device: device)
        #expect(sameOut.count == runSession(lines).1.count)
        #expect(same.counters.otherDevice == 0)
    }

    @Test func lineSplitterReassemblesChunksAndDropsOverlongLines() {
        var splitter = LineSplitter(maxLine: 16)
        var got: [String] = []
        let text = "{\"a\":1}\n{\"b\":22}\n" + String(repeating: "x", count: 40) + "\n{\"c\":3}\n"
        let bytes = Array(text.utf8)
        // Feed in 5-byte chunks so lines straddle chunk boundaries.
        var i = 0
        while i < bytes.count {
            let end = min(i + 5, bytes.count)
            Array(bytes[i..<end]).withUnsafeBufferPointer { chunk in
                splitter.feed(chunk) { got.append(String(decoding: $0, as: UTF8.self)) }
            }
            i = end
        }
        #expect(got == ["{\"a\":1}", "{\"b\":22}", "{\"c\":3}"])
        #expect(splitter.oversized == 1)
        // In one chunk, too.
        var one = LineSplitter(maxLine: 16)
        var got2: [String] = []
        bytes.withUnsafeBufferPointer { b in one.feed(b) { got2.append(String(decoding: $0, as: UTF8.self)) } }
        #expect(got2 == got)
        #expect(one.oversized == 1)
    }

    /// `locus decode` of a `gpspipe -w` recording gives the fixes and sky views the source
    /// published while it was recorded. Before the mapping was shared they differed on both
    /// inputs: decode ignored the recording's GST reports (other accuracies for 18:11:42), and
    /// the source published an empty sky view for a SKY without satellites.
    @Test func decodingARecordingGivesWhatTheSourcePublished() throws {
        let dopsOnly = [
            // gpsd ≥ 3.23 sends SKYs with just the DOPs between sky views.
            "{\"class\":\"TPV\",\"mode\":2,\"time\":\"2022-03-09T15:01:19.000Z\",\"lat\":51.07,\"lon\":-114.1}",
            "{\"class\":\"SKY\",\"hdop\":0.94,\"uSat\":8}",
            "{\"class\":\"TPV\",\"mode\":2,\"time\":\"2022-03-09T15:01:20.000Z\",\"lat\":51.07,\"lon\":-114.1}",
        ]
        for lines in [try Fixtures.lines(Self.recording), dopsOnly] {
            let (_, published, _) = runSession(lines)
            var d = RecordingDecoder(options: DecodeOptions(source: "gps0"))
            var decoded: [GpsdSession.Output] = []
            try d.decode(ByteInput(bytes: Array(lines.joined(separator: "\n").utf8)), format: .gpsd) { o in
                if let f = o.fix { decoded.append(.fix(f, o.time)) }
                if let s = o.sky { decoded.append(.sky(s, o.time)) }
            }
            #expect(!published.isEmpty)
            #expect(decoded == published)
        }
        // The DOP-only SKY gives no view, only the DOPs of the next fix.
        let (_, out, _) = runSession(dopsOnly)
        #expect(out.count == 2)
        if case .fix(let f, _) = out.last { #expect(f.hdop == 0.94 && f.satellitesUsed == 8) } else { Issue.record("\(out)") }
    }

    @Test func configurationDefaultsAndValidation() throws {
        func decode(_ json: String) throws -> GpsdConfiguration {
            try JSONDecoder().decode(GpsdConfiguration.self, from: Data(json.utf8))
        }
        let d = try decode("{}")
        #expect(d.host == "127.0.0.1" && d.port == 2947 && d.device == nil && d.reconnectMax == 10 && d.noDataTimeout == 10
                && d.maxTimeError == 86_400)
        let c = try decode("{\"host\":\"gps.local\",\"port\":3000,\"device\":\"/dev/ttyACM0\",\"reconnect_max\":2,\"no_data_timeout\":5}")
        #expect(c.host == "gps.local" && c.port == 3000 && c.device == "/dev/ttyACM0" && c.reconnectMax == 2 && c.noDataTimeout == 5)
        #expect(throws: ConfigValueError.self) { try decode("{\"port\":0}") }
        #expect(throws: ConfigValueError.self) { try decode("{\"reconnect_max\":0.1}") }
        #expect(throws: ConfigValueError.self) { try decode("{\"no_data_timeout\":-1}") }
        #expect(throws: ConfigValueError.self) { try decode("{\"device\":\"\"}") }
        #expect(throws: ConfigValueError.self) { try decode("{\"max_time_error\":-1}") }
        #expect(try decode("{\"max_time_error\":0}").maxTimeError == 0)
        #expect(Set(GpsdConfiguration.keys.map(\.name)) == ["host", "port", "device", "reconnect_max", "no_data_timeout", "max_time_error"])
        #expect(GpsdPlugin.factory.type == "gpsd" && GpsdPlugin.factory.kinds == [.source])
    }
}
