import Foundation
import LocusCore
import LocusFilePlugin
import LocusTestKit
import Testing

@Suite struct FileSinkTests {
    @Test func appendsRecordingLinesAndRotatesBySize() async throws {
        let path = temporaryPath("events.jsonl")
        // Two-digit speeds and sequence numbers: every line has the same length.
        let messages = (10..<60).map { fixMessage(speed: Double($0), at: Double($0), seq: UInt64($0)) }
        let lineSize = RecordingLine.encode(topic: messages[0].topic, body: messages[0].body).count
        let sink = FileSink(configuration: .with { $0.path = path; $0.maxBytes = lineSize * 10 + 5; $0.keep = 2 }, path: path)
        let (stream, continuation) = AsyncStream<BusMessage>.makeStream()
        for m in messages { continuation.yield(m) }
        continuation.finish()
        try await sink.run(messages: stream, context: PluginHarness().context)
        func lines(_ p: String) throws -> [String] {
            try String(contentsOfFile: p, encoding: .utf8).split(separator: "\n").map(String.init)
        }
        #expect(try lines(path).count == 10)
        #expect(try lines(path + ".1").count == 10)
        #expect(try lines(path + ".2").count == 10)
        #expect(!FileManager.default.fileExists(atPath: path + ".3"))
        // The newest lines are in the live file, intact and in order.
        let last = try lines(path).map { try RecordingLine.split(Array($0.utf8)) }
        let seqs = try last.map { try EnvelopeCodec.decode($0.body, registry: .core).seq }
        #expect(seqs == Array(50...59))
    }

    @Test func failsWithTheOSErrorWhenTheDirectoryIsMissing() async {
        let sink = FileSink(configuration: .with { $0.path = "/nonexistent-dir/x.jsonl" }, path: "/nonexistent-dir/x.jsonl")
        let (stream, c) = AsyncStream<BusMessage>.makeStream()
        c.finish()
        await #expect(throws: (any Error).self) { try await sink.run(messages: stream, context: PluginHarness().context) }
    }
}
