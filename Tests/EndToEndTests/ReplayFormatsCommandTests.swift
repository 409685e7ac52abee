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

/// A malformed file given to `locus decode` or played by a `replay` source: an error, never a
/// crash of the daemon.
@Suite(.serialized) struct MalformedRecordingTests {
    /// The GPX file that killed `locus decode` and `locus run` with SIGILL (exit 132).
    static let crashingGPX: [UInt8] = Array("<?xml version=\"1.0\"?><gpx version=\"1.1\"><trk".utf8) + [0xC3, 0x28] + Array("/></gpx>".utf8)

    @Test func decodeReportsAMalformedGPXFile() async throws {
        let dir = E2E.temporaryDirectory()
        FileManager.default.createFile(atPath: dir + "/x.gpx", contents: Data(Self.crashingGPX))
        let r = try await runToEnd(E2E.binary, ["decode", dir + "/x.gpx"], directory: dir, timeout: 30)
        #expect(r.status == 1, "\(r.status): \(r.stderr)")
        #expect(r.stderr.contains("not a valid gpx file: line 1"), "\(r.stderr)")
    }

    @Test func aMalformedReplayFileStopsOnlyItsSource() async throws {
        let dir = E2E.temporaryDirectory()
        FileManager.default.createFile(atPath: dir + "/x.gpx", contents: Data(Self.crashingGPX))
        let config = dir + "/config.yaml"
        try """
        sources:
          - type: replay
            id: bad
            file: \(dir)/x.gpx
            speed: max
          - type: replay
            id: good
            file: \(E2E.fixture("walk-short.jsonl"))
            speed: 20
            start_delay: 1
        sinks:
          - type: file
            id: archive
            path: \(dir)/events.jsonl
            topics: ["status.", "obs.fix."]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir]
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: env)
        defer { locus.kill9() }
        let events = { RecordedMessage.read(dir + "/events.jsonl") }
        #expect(await waitUntil(timeout: 20) { events().contains { $0.topic.hasPrefix("obs.fix.") } }, "\(locus.stderr)")
        #expect(locus.process.isRunning, "the daemon keeps serving: \(locus.stderr)")
        let bad = events().filter { $0.topic == "status.bad" }
        let failed = try #require(bad.first { $0.payload["state"] as? String == "failed" }, "\(bad.map(\.payload))")
        #expect((failed.payload["reason"] as? String)?.contains("not a valid gpx file") == true, "\(failed.payload)")
        // A file does not mend itself: the source is not restarted.
        #expect(!bad.contains { $0.payload["state"] as? String == "restarting" }, "\(bad.map(\.payload))")
        let ctl = try await runToEnd(E2E.binary, ["ctl", "status", "--json"], directory: dir, environment: env, timeout: 10)
        #expect(ctl.stdout.contains("\"failed\""), "\(ctl.stdout)")
        #expect(await locus.terminate().status == 0)
    }
}
