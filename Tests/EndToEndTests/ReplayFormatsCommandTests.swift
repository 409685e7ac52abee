import Foundation
import Testing

/// `locus replay` reads NMEA, gpsd and GPX logs directly, as `locus decode` would decode them.
@Suite struct ReplayFormatsCommandTests {
    /// A service that reacts to speed, over a few minutes of a real NMEA log with speeds.
    static let config = """
    services:
      - type: example-speed-alert
        id: alert
        limit: 0.5
        hysteresis: 0.2

    """

    @Test func anNMEALogReplaysLikeItsDecodedRecording() async throws {
        let work = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: work) }
        try Self.config.write(toFile: work + "/config.yaml", atomically: true, encoding: .utf8)
        // A gpsd regression log (BSD-2-Clause, see that directory's README) with speeds around the limit.
        let log = E2E.repoRoot + "/Tests/LocusNMEATests/Fixtures/gpsd/haicom-305N.log"
        let decoded = try await runToEnd(E2E.binary, ["decode", log], directory: work)
        #expect(decoded.status == 0, "\(decoded.stderr)")
        try decoded.stdout.write(toFile: work + "/rec.jsonl", atomically: true, encoding: .utf8)

        let direct = try await runToEnd(E2E.binary, ["replay", log, "--config", work + "/config.yaml"], directory: work)
        let viaRecording = try await runToEnd(E2E.binary, ["replay", work + "/rec.jsonl", "--config", work + "/config.yaml"], directory: work)
        #expect(direct.status == 0, "\(direct.stderr)")
        #expect(viaRecording.status == 0, "\(viaRecording.stderr)")
        #expect(!direct.stdout.isEmpty, "the service published nothing over the log")
        #expect(direct.stdout == viaRecording.stdout)
    }

    @Test func aFormatThatIsNotOneIsAUsageError() async throws {
        let r = try await runToEnd(E2E.binary, ["replay", "x", "--format", "kml"], directory: E2E.repoRoot)
        #expect(r.status == 2)
        #expect(r.stderr.contains("unknown format 'kml'"))
    }
}
