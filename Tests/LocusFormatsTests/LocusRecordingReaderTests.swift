import Foundation
import LocusCore
import Testing
@testable import LocusFormats

@Suite struct LocusRecordingReaderTests {
    @Test func passThrough() throws {
        // A recording made from the gpsd fixture, plus a foreign event type and a bad line.
        let (source, _) = try FormatFixtures.decode("bu353s4.gpsd.jsonl")
        var text = ""
        var seq: UInt64 = 0
        for o in source {
            seq += 1
            let body: [UInt8]
            if let f = o.fix { body = EnvelopeCodec.encode(f, producer: "rec", seq: seq, time: o.time) }
            else { body = EnvelopeCodec.encode(o.sky!, producer: "rec", seq: seq, time: o.time) }
            text += String(decoding: RecordingLine.encode(topic: o.topic, body: body), as: UTF8.self)
        }
        let raw = RawPayload(eventType: "x.custom", schemaVersion: 2, json: Array("{\"a\":1}".utf8))
        let t = try #require(EventTime(iso8601: "2024-01-01T00:00:00Z"))
        let body = EnvelopeCodec.encode(Envelope(type: raw.eventType, version: 2, producer: "ext", seq: 1, time: t, payload: .raw(raw)))
        text += String(decoding: RecordingLine.encode(topic: "x.custom.thing", body: body), as: UTF8.self)
        text += "{\"topic\":\"oops\"}\n"

        let (obs, decoder) = try FormatFixtures.decode(bytes: Array(text.utf8))
        #expect(decoder.format == .locus)
        #expect(obs.compactMap(\.fix).first?.latitude == -37.784788333)
        #expect(obs.count == source.count + 1)
        for (a, b) in zip(obs, source) {
            #expect(a.topic == b.topic && a.time == b.time && a.producer == "rec")
            // Compared as written: the wire form rounds (e.g. accuracies to millimetres).
            #expect(a.fix.map { EnvelopeCodec.encode($0, producer: "p", seq: 1, time: t) } == b.fix.map { EnvelopeCodec.encode($0, producer: "p", seq: 1, time: t) })
            #expect(a.sky.map { EnvelopeCodec.encode($0, producer: "p", seq: 1, time: t) } == b.sky.map { EnvelopeCodec.encode($0, producer: "p", seq: 1, time: t) })
        }
        let last = try #require(obs.last)
        #expect(last.topic == "x.custom.thing" && last.producer == "ext")
        guard case .raw(let r) = last.payload else { Issue.record("expected a raw payload"); return }
        #expect(r == raw)
        #expect(decoder.statistics.fixes == 25 && decoder.statistics.skyViews == 5 && decoder.statistics.others == 1)
        #expect(decoder.statistics[detail: "bad_lines"] == 1)

        let (noSky, _) = try FormatFixtures.decode(bytes: Array(text.utf8), options: .init(includeSky: false))
        #expect(noSky.count == source.count + 1 - 5)
    }

    /// Found by the recording reader's fuzz target: a line on an invalid topic (`obs.fix.gpS0`)
    /// was emitted, for the hub to drop as bad_topic. Now skipped and counted where it is read.
    @Test func linesOnInvalidTopicsAreSkippedAndCounted() throws {
        let t = try #require(EventTime(iso8601: "2024-01-01T00:00:00Z"))
        let fix = Fix(source: "gps0", mode: .twoD, latitude: 1, longitude: 2)
        let body = EnvelopeCodec.encode(fix, producer: "gps0", seq: 1, time: t)
        var text = ""
        for topic in ["obs.fix.gpS0", "obs fix", "obs.fix.gps0"] {
            text += String(decoding: RecordingLine.encode(topic: topic, body: body), as: UTF8.self)
        }
        let (obs, decoder) = try FormatFixtures.decode(bytes: Array(text.utf8), format: .locus)
        #expect(obs.map(\.topic) == ["obs.fix.gps0"])
        #expect(decoder.statistics[detail: "bad_topics"] == 2)
    }
}
