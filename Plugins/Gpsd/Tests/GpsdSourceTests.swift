import Foundation
import LocusCore
@testable import LocusGpsdPlugin
import LocusTestKit
import Testing

/// The source without a gpsd: status on failure, backoff, prompt shutdown.
@Suite struct GpsdSourceTests {
    @Test(.timeLimit(.minutes(1)))
    func unresolvableHostIsReportedOnceAndShutdownIsPrompt() async throws {
        let harness = Harness(id: "gps0")
        let source = GpsdSource(id: "gps0", configuration: GpsdConfiguration.with { $0.host = "gpsd.invalid"; $0.reconnectMax = 0.25 })
        let context = harness.context
        let task = Task { try await source.run(context: context) }
        // Name lookup may be slow on some machines; where it fails, it is reported once.
        if await waitUntil(timeout: 10, { !harness.statuses.states.isEmpty }) {
            // Several attempts (0.25 s apart), one status.
            try await Task.sleep(nanoseconds: 800_000_000)
            #expect(harness.statuses.states == [.disconnected])
            #expect(harness.statuses.all.first?.1?.contains("cannot resolve gpsd.invalid") == true, "\(harness.statuses.all)")
        }
        let start = ContinuousClock.now
        task.cancel()
        _ = await task.result
        #expect(ContinuousClock.now - start < .seconds(1))
        #expect(try harness.fixes().isEmpty)
    }

    @Test func producesItsOwnTopics() {
        let s = GpsdSource(id: "car", configuration: GpsdConfiguration())
        #expect(s.produces == ["obs.fix.car", "obs.sky.car"])
        #expect(!s.drivesClock)
    }
}
