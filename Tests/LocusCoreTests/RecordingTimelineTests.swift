import Foundation
import Testing
@testable import LocusCore

@Suite struct RecordingTimelineTests {
    func write(_ lines: [String]) throws -> String {
        let path = NSTemporaryDirectory() + "timeline-\(UUID().uuidString).jsonl"
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func fixLine(_ iso: String, seq: UInt64) -> String {
        let body = EnvelopeCodec.encode(Fix(source: "gps0", mode: .twoD, latitude: 1, longitude: 2),
                                        producer: "gps0", seq: seq, time: EventTime(iso8601: iso)!)
        return String(decoding: RecordingLine.encode(topic: "obs.fix.gps0", body: body).dropLast(), as: UTF8.self)
    }

    func describe(_ t: inout RecordingTimeline) -> [String] {
        var out: [String] = []
        while let item = t.next() {
            switch item {
            case .tick(let time): out.append("tick \(time.iso8601.dropFirst(11))")
            case .message(let topic, let e): out.append("\(topic) \(e.time.iso8601.dropFirst(11))")
            case .skipped(let line, _): out.append("skip \(line)")
            }
        }
        return out
    }

    @Test func interleavesTicksInRecordedTimeAndSkipsBadLines() throws {
        let path = try write([
            fixLine("2024-05-17T08:00:00.500Z", seq: 1),
            "garbage",
            #"{"topic":"status.x","envelope":{}}"#,
            fixLine("2024-05-17T08:00:02.500Z", seq: 2),
        ])
        var t = RecordingTimeline(reader: try LineReader(path: path), topics: ["obs."], tickInterval: 1)
        #expect(describe(&t) == [
            "obs.fix.gps0 08:00:00.500Z", "skip 2", "tick 08:00:01.000Z", "tick 08:00:02.000Z",
            "obs.fix.gps0 08:00:02.500Z", "tick 08:00:03.000Z",
        ])
    }

    @Test func loopingKeepsTimeIncreasing() throws {
        let path = try write([fixLine("2024-05-17T08:00:00.000Z", seq: 1), fixLine("2024-05-17T08:00:01.000Z", seq: 2)])
        var t = RecordingTimeline(reader: try LineReader(path: path), topics: ["obs."], tickInterval: 1, loop: true)
        var times: [Int64] = []
        while times.count < 6, let item = t.next() {
            if case .message(_, let e) = item { times.append(e.time.milliseconds) }
        }
        #expect(times == times.sorted())
        #expect(Set(times).count == 6)
    }
}
