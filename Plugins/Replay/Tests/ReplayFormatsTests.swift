import Foundation
import LocusCore
import LocusFormats
@testable import LocusReplayPlugin
import LocusTestKit
import Testing

/// The replay source on NMEA logs, gpsd JSON logs and GPX files (the fixtures of LocusFormatsTests).
@Suite struct ReplayFormatsTests {
    static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Tests/LocusFormatsTests/Fixtures").path
    static let gpx = fixtures + "/cerknicko-jezero.gpx"
    static let nmea = fixtures + "/bu353s4.log"
    static let gpsd = fixtures + "/bu353s4.gpsd.jsonl"

    func play(_ path: String, _ configure: (inout ReplayConfiguration) -> Void = { _ in }, id: String = "trk") async throws -> [BusMessage] {
        var config = ReplayConfiguration.with { $0.file = path; $0.speed = .max }
        configure(&config)
        let source = ReplaySource(configuration: config, path: path, pluginID: id)
        let harness = PluginHarness(id: id)
        try await source.run(context: harness.context)
        return try harness.published()
    }

    func direct(_ path: String, source: String, date: EventTime? = nil, format: RecordingFormat? = nil) throws -> [RecordedObservation] {
        try RecordingDecoder.observations(path: path, format: format, options: .init(source: source, fallbackDate: date)).observations
    }

    /// The observations as (topic, time, fix, sky), for comparing published with decoded.
    func same(_ out: [BusMessage], _ expected: [RecordedObservation], sourceLocation: SourceLocation = #_sourceLocation) {
        let obs = out.filter { $0.topic != "clock.tick" }
        #expect(obs.count == expected.count, sourceLocation: sourceLocation)
        #expect(obs.map(\.topic) == expected.map(\.topic), sourceLocation: sourceLocation)
        #expect(obs.map(\.time) == expected.map(\.time), sourceLocation: sourceLocation)
        // Payloads as they go on the wire (the codec rounds coordinates and speeds), as `locus decode` writes them.
        #expect(obs.map { wire($0.envelope.payload) } == expected.map { wire($0.payload) }, sourceLocation: sourceLocation)
        #expect(obs.map { $0.payload(Fix.self) != nil } == expected.map { $0.fix != nil }, sourceLocation: sourceLocation)
        #expect(obs.map { $0.payload(SkyView.self) != nil } == expected.map { $0.sky != nil }, sourceLocation: sourceLocation)
    }

    func wire(_ payload: DecodedPayload) -> String {
        switch payload {
        case .typed(let p):
            return String(decoding: EnvelopeCodec.encode(p, producer: "x", seq: 1, time: EventTime(milliseconds: 0)), as: UTF8.self)
        case .raw(let r):
            return "raw \(r.eventType) \(String(decoding: r.json, as: UTF8.self))"
        }
    }

    /// Ticks on whole multiples of `interval` ms, each before the first message later than it,
    /// none skipped, and a closing tick after the last message.
    func ticksAreInRecordedTime(_ out: [BusMessage], interval: Int64 = 1000, sourceLocation: SourceLocation = #_sourceLocation) {
        let ticks = out.filter { $0.topic == "clock.tick" }.map(\.time.milliseconds)
        #expect(!ticks.isEmpty, sourceLocation: sourceLocation)
        #expect(ticks.allSatisfy { $0 % interval == 0 }, sourceLocation: sourceLocation)
        #expect(zip(ticks, ticks.dropFirst()).allSatisfy { $1 == $0 + interval }, sourceLocation: sourceLocation)
        let times = out.map(\.time)
        #expect(times == times.sorted(), sourceLocation: sourceLocation)
        let messages = out.filter { $0.topic != "clock.tick" }.map(\.time.milliseconds)
        if let first = messages.first, let last = messages.last, let t0 = ticks.first, let tn = ticks.last {
            #expect(t0 >= first && t0 - first < interval, sourceLocation: sourceLocation)
            #expect(tn >= last && tn - last <= interval, sourceLocation: sourceLocation)
        }
        #expect(out.last?.topic == "clock.tick", sourceLocation: sourceLocation)
    }

    @Test func gpxPublishesOneFixPerTimedPointWithRecordedTicks() async throws {
        let out = try await play(Self.gpx, id: "walk")
        let expected = try direct(Self.gpx, source: "walk")
        #expect(expected.count > 100)
        #expect(out.filter { $0.topic == "obs.fix.walk" }.count == expected.count)
        #expect(out.allSatisfy { $0.topic == "obs.fix.walk" || $0.topic == "clock.tick" })
        #expect(out.allSatisfy { $0.envelope.producer == "walk" })
        #expect(out.map(\.envelope.seq) == Array(1...UInt64(out.count)))
        #expect(out.filter { $0.topic == "obs.fix.walk" }.allSatisfy { $0.payload(Fix.self)?.source == "walk" })
        same(out, expected)
        ticksAreInRecordedTime(out)
    }

    @Test func nmeaLogMatchesTheDecoder() async throws {
        let out = try await play(Self.nmea, { $0.source = "bu353" })
        let expected = try direct(Self.nmea, source: "bu353")
        #expect(expected.contains { $0.sky != nil } && expected.contains { $0.fix != nil })
        same(out, expected)
        ticksAreInRecordedTime(out)
    }

    @Test func nmeaDateDatesAnUndatedLog() async throws {
        // Only GGA sentences: no RMC/ZDA, so no date but the configured one.
        let text = try String(contentsOfFile: Self.nmea, encoding: .utf8)
            .split(separator: "\n").filter { $0.hasPrefix("$GPGGA") }.joined(separator: "\n") + "\n"
        let path = temporaryPath("gga.nmea")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let day = try #require(EventTime(iso8601: "2024-05-17T00:00:00Z"))
        #expect(try await play(path).filter { $0.topic == "obs.fix.trk" }.isEmpty)  // no date: dropped, as locus decode does
        let out = try await play(path, { $0.date = day })
        let expected = try direct(path, source: "trk", date: day)
        #expect(!expected.isEmpty)
        same(out, expected)
        #expect(out.filter { $0.topic == "obs.fix.trk" }.allSatisfy { $0.time.iso8601.hasPrefix("2024-05-17T") })
    }

    @Test func gpsdLogMatchesTheDecoder() async throws {
        let out = try await play(Self.gpsd, { $0.source = "gpsd0" })
        let expected = try direct(Self.gpsd, source: "gpsd0")
        #expect(!expected.isEmpty)
        same(out, expected)
        ticksAreInRecordedTime(out)
    }

    @Test func startAndEndCutInRecordedTime() async throws {
        let all = try direct(Self.gpx, source: "trk")
        let start = all[all.count / 4].time, end = all[all.count / 2].time
        let out = try await play(Self.gpx, { $0.start = start; $0.end = end })
        let expected = all.filter { $0.time >= start && $0.time <= end }
        #expect(expected.count > 10 && expected.count < all.count)
        same(out, expected)
        ticksAreInRecordedTime(out)
        #expect(out.first?.topic == "obs.fix.trk" && out.first?.time == start)
    }

    @Test func startAndEndAlsoCutLocusRecordings() async throws {
        let path = temporaryPath("rec.jsonl")
        var text = ""
        for i in 0..<20 {
            let m = fixMessage(speed: Double(i), at: Double(i), seq: UInt64(i + 1))
            text += String(decoding: RecordingLine.encode(topic: m.topic, body: m.body), as: UTF8.self)
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        let base = fixMessage(speed: 0, at: 0).time
        let out = try await play(path, { $0.start = base.adding(seconds: 5); $0.end = base.adding(seconds: 9.5) })
        #expect(out.filter { $0.topic == "obs.fix.gps0" }.map { $0.payload(Fix.self)!.speed! } == [5, 6, 7, 8, 9])
        ticksAreInRecordedTime(out)
    }

    @Test func configurationParsesAndValidatesTheNewKeys() throws {
        func decode(_ json: String) throws -> ReplayConfiguration {
            try JSONDecoder().decode(ReplayConfiguration.self, from: Data(json.utf8))
        }
        let c = try decode(#"{"file":"a","format":"gpx","source":"bike","date":"2024-05-17","start":"2024-05-17T08:00:00Z","end":"2024-05-17T09:00:00+01:00"}"#)
        #expect(c.format == .gpx && c.source == "bike")
        #expect(c.date == EventTime(iso8601: "2024-05-17T00:00:00Z"))
        #expect(c.start == EventTime(iso8601: "2024-05-17T08:00:00Z"))
        #expect(c.end == EventTime(iso8601: "2024-05-17T08:00:00Z"))
        let d = try decode(#"{"file":"a"}"#)
        #expect(d.format == .auto && d.source == nil && d.date == nil && d.start == nil && d.end == nil)
        for (json, key) in [(#"{"file":"a","format":"kml"}"#, "format"), (#"{"file":"a","date":"17.5.2024"}"#, "date"),
                            (#"{"file":"a","date":"2024-02-30"}"#, "date"), (#"{"file":"a","start":"yesterday"}"#, "start"),
                            (#"{"file":"a","end":"2024-05-17"}"#, "end"), (#"{"file":"a","source":"Gps.0"}"#, "source"),
                            (#"{"file":"a","start":"2024-05-17T09:00:00Z","end":"2024-05-17T08:00:00Z"}"#, "end")] {
            #expect(throws: ConfigValueError.self, "\(key)") { try decode(json) }
            do { _ = try decode(json) } catch let e as ConfigValueError { #expect(e.key == key, "\(json)") }
        }
    }

    @Test func formatIsDetectedOrOverridden() throws {
        #expect(ReplaySource(configuration: .with { $0.file = Self.gpx }, path: Self.gpx).format == .gpx)
        #expect(ReplaySource(configuration: .with { $0.file = Self.nmea }, path: Self.nmea).format == .nmea)
        #expect(ReplaySource(configuration: .with { $0.file = Self.gpsd }, path: Self.gpsd).format == .gpsd)
        #expect(ReplaySource(configuration: .with { $0.file = Self.gpx; $0.format = .nmea }, path: Self.gpx).format == .nmea)
        let gpxSource = ReplaySource(configuration: .with { $0.file = Self.gpx; $0.source = "bike" }, path: Self.gpx, pluginID: "x")
        #expect(Set(gpxSource.produces) == ["obs.fix.bike", "obs.sky.bike", "clock.tick"])
        #expect(Set(ReplaySource(configuration: .with { $0.file = Self.gpx }, path: Self.gpx, pluginID: "x").produces) == ["obs.fix.x", "obs.sky.x", "clock.tick"])
        // Undetectable content: the factory's check (format nil) before a source is made.
        let path = temporaryPath("odd.txt")
        try "hello\n".write(toFile: path, atomically: true, encoding: .utf8)
        #expect(ReplaySource.format(of: path, configured: .auto) == nil)
        #expect(ReplaySource.format(of: path, configured: .gpsd) == .gpsd)
    }

    @Test func overriddenFormatIsUsedForPlayback() async throws {
        // A gpsd log read as NMEA has no sentences: nothing but (no) ticks.
        let out = try await play(Self.gpsd, { $0.format = .nmea })
        #expect(out.isEmpty)
        let detected = try await play(Self.gpsd, { $0.format = .gpsd })
        #expect(!detected.filter { $0.topic == "obs.fix.trk" }.isEmpty)
    }

    @Test func loopKeepsTimeIncreasing() async throws {
        let passes = 3
        let harness = PluginHarness(id: "trk")
        let source = ReplaySource(configuration: .with { $0.file = Self.gpx; $0.speed = .max; $0.loop = true }, path: Self.gpx, pluginID: "trk")
        let task = Task { try await source.run(context: harness.context) }
        let perPass = try direct(Self.gpx, source: "trk").count
        // Generous: alone this takes well under a second, but the check decodes everything published
        // so far on every poll, which is slow on a loaded 2-core machine.
        let enough = try await waitUntil(timeout: 60) { try harness.published().filter { $0.topic == "obs.fix.trk" }.count > passes * perPass }
        task.cancel()
        _ = try? await task.value
        #expect(enough)
        let out = try harness.published()
        let fixes = out.filter { $0.topic == "obs.fix.trk" }
        #expect(out.map(\.time) == out.map(\.time).sorted())
        // Each pass repeats the first's fixes, shifted forward.
        let first = Array(fixes.prefix(perPass)), second = Array(fixes.dropFirst(perPass).prefix(perPass))
        #expect(first.map { $0.payload(Fix.self)!.latitude } == second.map { $0.payload(Fix.self)!.latitude })
        #expect(second.first!.time > first.last!.time)
        let shift = second[0].time.milliseconds - first[0].time.milliseconds
        #expect(zip(first, second).allSatisfy { $1.time.milliseconds - $0.time.milliseconds == shift })
    }

    @Test func cancellationMidFileReturnsPromptlyAndStopsTheDecoder() async throws {
        let source = ReplaySource(configuration: .with { $0.file = Self.gpx; $0.speed = .factor(1) }, path: Self.gpx)
        let harness = PluginHarness()
        let task = Task { try await source.run(context: harness.context) }
        try await Task.sleep(nanoseconds: 300_000_000)
        let cancelled = ContinuousClock.now
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        // Alone this takes < 0.5 s. In the full parallel suite, CPU-bound tests hold the two
        // cooperative threads and it has taken up to 2 s; the bound catches a cancellation that
        // is ignored (the file would play on for minutes), not scheduling delay.
        #expect(cancelled.duration(to: .now) < .seconds(4))
        #expect(try harness.published().count < 20)
    }

    @Test func feedAppliesBackpressureAndCancelStopsTheThread() async throws {
        let feed = DecodeFeed(capacity: 4)
        feed.start(path: Self.gpx, format: .gpx, options: .init(source: "x"))
        try await Task.sleep(nanoseconds: 200_000_000)
        #expect(feed.buffered <= 4)
        guard case .observation = try await feed.next() else { Issue.record("no observation"); return }
        feed.cancel()
        #expect(await waitUntil(timeout: 2) { feed.decoderFinished })
    }

    /// Issue 29 item 8: `speed: max, loop: true` over a 294-message NMEA log grew by about one
    /// file's size per pass (39 → 510 MB in 60 s). Each pass's decoder feed must be released
    /// when the pass ends, with its thread, its file descriptor and its buffers.
    @Test func aLoopingDecodedReplayReleasesEachPass() async throws {
        func openDescriptors() -> Int { (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd").count) ?? 0 }
        weak var released: DecodeFeed?
        do {
            let feed = DecodeFeed()
            released = feed
            feed.start(path: Self.nmea, format: nil, options: .init(source: "x"))
            while case .observation = try await feed.next() {}
            feed.cancel()
        }
        #expect(await waitUntil(timeout: 2) { released == nil }, "a finished feed is still alive")
        let before = openDescriptors()
        let source = ReplaySource(configuration: .with { $0.file = Self.nmea; $0.speed = .max; $0.loop = true }, path: Self.nmea)
        let harness = PluginHarness()
        let task = Task { try await source.run(context: harness.context) }
        #expect(try await waitUntil(timeout: 20) { try harness.published().count > 30_000 })
        // Many passes in: the descriptors each pass opened are closed again.
        #expect(openDescriptors() <= before + 2, "\(openDescriptors()) descriptors open, \(before) before")
        task.cancel()
        _ = try? await task.value
    }
}
