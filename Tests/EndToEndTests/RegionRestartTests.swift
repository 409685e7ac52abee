import Foundation
import LocusStore
import Testing

/// `kill -9` at random moments of a replay through the region service, then a restart: the
/// region events the hub received over all runs (its journal, which a durable subscriber
/// reads) must be those of one uninterrupted run — none missing, none twice.
///
/// The track is a real recording (`Fixtures/region-restart/input.jsonl`, see its ORIGIN.md)
/// with circles laid along it (`regions.geojson`), so transitions come every few seconds of
/// replay and kills land between, just after and during them. Each run replays the file from
/// its start: the runtime skips what the service had processed before the kill, and publishes
/// what it had committed but not published. (A plain ZeroMQ subscriber may miss those: they
/// are published as the restarted daemon starts, before it has reconnected.)
@Suite(.serialized) struct RegionRestartTests {
    static let caseDirectory = E2E.fixture("region-restart")
    static let replayID = "restart-replay"
    /// Replay speed: the recording then plays in a few seconds.
    static let speed = 4000.0

    struct Trial {
        let work = E2E.temporaryDirectory()
        let collector: ChildProcess
        let events: String

        init() async throws {
            events = work + "/events.jsonl"
            try RegionRestartTests.config.write(toFile: work + "/config.yaml", atomically: true, encoding: .utf8)
            collector = try ChildProcess(E2E.python, [E2E.script("collect.py"), "--endpoint", "ipc://\(work)/publish.sock",
                                                      "--prefix", "region.", "--prefix", "status.\(RegionRestartTests.replayID)",
                                                      "--max-wait", "600", "--ready-file", work + "/ready", "--out", events],
                                         directory: work)
            _ = await waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: work + "/ready") }
        }

        func start() throws -> ChildProcess {
            try ChildProcess(E2E.binary, ["run", work + "/config.yaml"], directory: work,
                             environment: ["LOCUS_RUNTIME_DIR": work, "LOCUS_STATE_DIR": work, "LOCUS_LOG_LEVEL": "warning"])
        }

        var finishedRuns: Int {
            RecordedMessage.read(events).filter { $0.topic == "status.\(RegionRestartTests.replayID)" && $0.payload["state"] as? String == "stopped" }.count
        }

        /// Runs the daemon until its replay has finished, then stops it; returns its log.
        @discardableResult
        func runToCompletion() async throws -> String {
            let before = finishedRuns
            let daemon = try start()
            let done = await waitUntil(timeout: 120) { finishedRuns > before || !daemon.process.isRunning }
            #expect(done, "replay did not finish: \(daemon.stderr)")
            try await Task.sleep(nanoseconds: 700_000_000)
            let stop = await daemon.terminate(timeout: 10)
            #expect(stop.status == 0, "locus run: \(daemon.stderr)")
            return daemon.stderr
        }

        /// Region transitions in the hub's journal, as comparable keys.
        func transitions() async -> [String] {
            _ = await collector.terminate(timeout: 5)
            var out: [String] = []
            _ = JournalReader(directory: work + "/journal").read(from: .oldest) { entry in
                guard let e = try? JSONSerialization.jsonObject(with: Data(entry.body)) as? [String: Any],
                      let type = e["type"] as? String, ["region.enter", "region.exit", "region.dwell"].contains(type),
                      let p = e["payload"] as? [String: Any] else { return true }
                out.append("\(type) \(p["region"] ?? "") \(p["state"] ?? "") since=\(p["since"] ?? "") fix=\(p["fix_time"] ?? "-")")
                return true
            }
            return out
        }

        func cleanUp() { try? FileManager.default.removeItem(atPath: work) }
    }

    static var config: String {
        """
        services:
          - type: region
            id: fences
            file: \(caseDirectory)/regions.geojson
        sources:
          - type: replay
            id: \(replayID)
            file: \(caseDirectory)/input.jsonl
            speed: \(speed)
            start_delay: 0.5
            tick_interval: 1

        """
    }

    /// Seconds of wall time the replay takes.
    static var replaySeconds: Double { (GoldenLive.span(of: caseDirectory + "/input.jsonl") ?? 0) / speed }

    static let trials = 12

    @Test func killNineAtRandomMomentsLosesAndDuplicatesNothing() async throws {
        #expect(Self.replaySeconds > 2, "the recording is too short to kill during its replay")
        let reference = try await Trial()
        try await reference.runToCompletion()
        let expected = await reference.transitions()
        reference.cleanUp()
        #expect(expected.count >= 20, "too few transitions to test restarts with: \(expected.count)")

        var generator = SystemRandomNumberGenerator()
        var afterRestart = 0
        var totalKills = 0
        // 12 trials of 1-2 kills (~15 s each): every CI run draws new moments, so coverage of
        // the replay's moments accumulates across runs; 20 made this the suite's longest test.
        for trialNumber in 0..<Self.trials {
            let trial = try await Trial()
            // One or two kills, each at a random moment of the replay.
            let kills = Int.random(in: 1...2, using: &generator)
            totalKills += kills
            var killTimes: [Double] = []
            for _ in 0..<kills {
                let daemon = try trial.start()
                let at = 0.5 + Double.random(in: 0.05...(Self.replaySeconds * 0.95), using: &generator)
                killTimes.append(at)
                try await Task.sleep(nanoseconds: UInt64(at * 1e9))
                daemon.kill9()
                _ = await daemon.wait(timeout: 5)
            }
            try await trial.runToCompletion()
            let received = await trial.transitions()
            afterRestart += RecordedMessage.read(trial.events).filter { $0.payload["detected_after_restart"] as? Bool == true }.count
            let duplicates = Dictionary(grouping: received, by: { $0 }).filter { $0.value.count > 1 }.keys.sorted()
            let missing = expected.filter { !received.contains($0) }
            let extra = received.filter { !expected.contains($0) }
            #expect(missing.isEmpty && extra.isEmpty && duplicates.isEmpty && received == expected,
                    "trial \(trialNumber), kills at \(killTimes) s: duplicates \(duplicates), missing \(missing), unexpected \(extra)")
            trial.cleanUp()
        }
        // The runtime restores the state exactly: no transition knows it came after a restart.
        #expect(afterRestart == 0)
        print("region restart test: \(expected.count) transitions per run, \(totalKills) kills in \(Self.trials) trials, \(afterRestart) transitions marked detected_after_restart")
    }
}
