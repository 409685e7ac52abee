import Foundation
import LocusCore
import LocusReplayPlugin
import LocusTestKit
import Testing

@Suite struct ReplaySourceTests {
    func recording(_ count: Int) throws -> String {
        let path = temporaryPath("rec.jsonl")
        var text = ""
        for i in 0..<count {
            let m = fixMessage(speed: Double(i), at: Double(i) * 0.5, seq: UInt64(i + 1))
            text += String(decoding: RecordingLine.encode(topic: m.topic, body: m.body), as: UTF8.self)
        }
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func republishesEveryMessageWithItsOwnSequenceAndRecordedTicks() async throws {
        let path = try recording(10)
        let source = ReplaySource(configuration: .with { $0.file = path; $0.speed = .max }, path: path)
        let harness = PluginHarness(id: "walk")
        try await source.run(context: harness.context)
        let out = try harness.published()
        let fixes = out.filter { $0.topic == "obs.fix.gps0" }
        let ticks = out.filter { $0.topic == "clock.tick" }
        #expect(fixes.count == 10)
        #expect(out.map(\.envelope.seq) == Array(1...UInt64(out.count)))
        #expect(out.allSatisfy { $0.envelope.producer == "walk" })
        #expect(ticks.count == 6)  // whole seconds 0…4 inside the 4.5 s recording, plus the closing tick at 5
        #expect(out.map(\.time) == out.map(\.time).sorted())
        #expect(fixes.map { $0.payload(Fix.self)!.speed! } == (0..<10).map(Double.init))
    }

    @Test func pacesAtTheConfiguredSpeed() async throws {
        let path = try recording(5) // 2 s of recorded time
        let source = ReplaySource(configuration: .with { $0.file = path; $0.speed = .factor(4) }, path: path)
        let harness = PluginHarness()
        let started = ContinuousClock.now
        try await source.run(context: harness.context)
        let elapsed = started.duration(to: .now)
        #expect(elapsed >= .milliseconds(450))  // 2 s at 4× is 0.5 s; never faster
        #expect(try harness.published().count >= 5)
    }

    @Test func stopsPromptlyWhenCancelled() async throws {
        let path = try recording(100)
        let source = ReplaySource(configuration: .with { $0.file = path; $0.speed = .factor(1) }, path: path)
        let harness = PluginHarness()
        let task = Task { try await source.run(context: harness.context) }
        try await Task.sleep(nanoseconds: 200_000_000)
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
