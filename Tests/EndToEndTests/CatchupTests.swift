import Foundation
import Testing

/// Issue 14, item 4, through `locus sub`: `--since all` gives what the journal holds, then live;
/// `--resume FILE` stopped and started again five times during a replay (at 400x: about 5 s) prints every event exactly once and in
/// order; a snapshot gives each region's current state; bad requests get a catchup.error.
@Suite(.serialized) struct CatchupTests {
    static func config(_ dir: String, speed: String) -> String {
        """
        hub:
          state_directory: \(dir)/state
        sources:
          - type: replay
            id: walk
            file: \(E2E.fixture("walk-short.jsonl"))
            speed: \(speed)
        services:
          - type: standard
            id: here
            distance_filter: 0
          - type: region
            id: fences
            persist: false
            regions:
              - {id: start, center: {lat: 45.772175, lon: 14.357659}, radius: 50}
              - {id: far, center: {lat: 45.9, lon: 14.5}, radius: 40}
        """
    }

    /// (producer, seq) of each line of `locus sub --json` output.
    static func origins(_ text: String) -> [String] {
        text.split(separator: "\n").compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let e = o["envelope"] as? [String: Any], let p = e["producer"] as? String, let s = e["seq"] as? Int else { return nil }
            return "\(p):\(s)"
        }
    }

    @Test func resumeStoppedAndStartedAgainPrintsEverythingOnceInOrder() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.config(dir, speed: "400").write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir, "LOCUS_LOG_LEVEL": "warning"]
        let locus = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: env)
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 15) { FileManager.default.fileExists(atPath: dir + "/catchup.sock") })

        // Five runs of 0.3 to 1 s each while the replay goes on, then one after it finished.
        var resumed = ""
        for run in 0..<6 {
            let args = ["sub", "location.", "region.", "--json", "--resume", dir + "/position.json"] + (run == 0 ? ["--since", "all"] : [])
            let sub = try ChildProcess(E2E.binary, args, directory: dir, environment: env)
            if run == 5 {
                _ = await ExecSupervisionTests.waitForPlugin(dir, "walk", timeout: 30) { $0["state"] as? String == "stopped" }
                try await Task.sleep(nanoseconds: 1_500_000_000)
            } else {
                try await Task.sleep(nanoseconds: UInt64.random(in: 300_000_000...1_000_000_000))
            }
            let end = await sub.terminate()
            #expect(end.status == 0, "\(sub.stderr)")
            #expect(!sub.stderr.contains("journal no longer holds"), "\(sub.stderr)")
            resumed += sub.stdout
        }
        // The uninterrupted run: everything the journal holds on those topics.
        let all = try await runToEnd(E2E.binary, ["sub", "location.", "region.", "--json", "--since", "all", "--duration", "2"],
                                     directory: dir, environment: env)
        #expect(all.status == 0, "\(all.stderr)")
        let expected = Self.origins(all.stdout)
        let got = Self.origins(resumed)
        #expect(expected.count > 100, "\(expected.count)")
        #expect(got.count == expected.count && got == expected,
                "resumed \(got.count), uninterrupted \(expected.count); first difference at \(Array(zip(got, expected)).firstIndex { $0.0 != $0.1 } ?? min(got.count, expected.count))")
        #expect(Set(got).count == got.count, "repeats")
        #expect(await locus.terminate().status == 0)
    }

    @Test func aSnapshotGivesEachRegionsCurrentStateAndBadRequestsAreRefused() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.config(dir, speed: "max").write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir, "LOCUS_LOG_LEVEL": "warning"]
        let locus = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: env)
        defer { locus.kill9() }
        _ = await ExecSupervisionTests.waitForPlugin(dir, "walk", timeout: 30) { $0["state"] as? String == "stopped" }
        try await Task.sleep(nanoseconds: 500_000_000)
        let run = try await runToEnd(E2E.python, [E2E.script("catchup_requests.py"), "ipc://\(dir)/catchup.sock"], directory: dir)
        #expect(run.status == 0, "\(run.stdout)\(run.stderr)")
        // One line per snapshot event: topic and state; then the refusals.
        let lines = run.stdout.split(separator: "\n").map(String.init)
        let snapshot = lines.filter { $0.hasPrefix("snapshot ") }
        // The walk enters `start` and leaves it; `far` is never entered (nothing to report).
        #expect(snapshot == ["snapshot region.exit.start unsatisfied"], "\(lines)")
        #expect(lines.contains("error version must be 1"), "\(lines)")
        #expect(lines.contains("error type must be catchup.request or catchup.snapshot"), "\(lines)")
        #expect(lines.contains { $0.hasPrefix("error the hub did not see the subscription") }, "\(lines)")
        #expect(lines.contains("error limit must be an integer from 1 to 10000"), "\(lines)")
        #expect(lines.contains("status ok"), "\(lines)")
        #expect(await locus.terminate().status == 0)

        // The snapshot outlives the daemon: it is kept in the journal directory.
        #expect(FileManager.default.fileExists(atPath: dir + "/state/journal/snapshot.jsonl"))
    }

    @Test func withTheJournalOffSubSaysThereIsNoCatchUp() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "hub:\n  journal: false\n".write(toFile: dir + "/off.yaml", atomically: true, encoding: .utf8)
        let run = try await runToEnd(E2E.binary, ["sub", "--config", dir + "/off.yaml", "--since", "all", "--duration", "1"],
                                     directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        #expect(run.status != 0)
        #expect(run.stderr.contains("hub.journal: false"), "\(run.stderr)")
        let bad = try await runToEnd(E2E.binary, ["sub", "--since", "yesterday"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        #expect(bad.status != 0 && bad.stderr.contains("is not 'all', a time"), "\(bad.stderr)")
    }

    /// Issue 30, item 2: a catch-up socket that is not there is said at once, as `ctl` says it,
    /// not after the 15 s wait for an answer.
    @Test func aMissingCatchUpSocketIsSaidAtOnce() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try "hub:\n  journal: false\n".write(toFile: dir + "/off.yaml", atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir]
        let locus = try ChildProcess(E2E.binary, ["run", dir + "/off.yaml"], directory: dir, environment: env)
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 15) { FileManager.default.fileExists(atPath: dir + "/publish.sock") }, "\(locus.stderr)")
        let run = try await runToEnd(E2E.binary, ["sub", "-e", "ipc://\(dir)/publish.sock", "--catchup-endpoint", "ipc://\(dir)/catchup.sock",
                                                  "--since", "all"], directory: dir, environment: env, timeout: 5)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr == "locus sub: nothing is listening at ipc://\(dir)/catchup.sock (no socket file) — is `locus run` running?"
                + " (The catch-up socket is there only with hub.journal on.)\n")
        #expect(await locus.terminate().status == 0)
    }
}

/// One daemon per journal: a second `locus run` on the same state directory stops at once,
/// naming the first one's process and what to do.
@Suite struct JournalLockTests {
    @Test func aSecondDaemonOnTheSameJournalIsRefusedWithTheReason() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/c.yaml"
        try "hub:\n  state_directory: \(dir)/state\n".write(toFile: config, atomically: true, encoding: .utf8)
        let first = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir + "/a"])
        defer { first.kill9() }
        #expect(await waitUntil(timeout: 10) { first.stderr.contains("hub started") }, "\(first.stderr)")
        let second = try await runToEnd(E2E.binary, ["run", config], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir + "/b"], timeout: 10)
        #expect(second.status == 1)
        #expect(second.stderr.contains("is in use by another process (pid \(first.process.processIdentifier))"), "\(second.stderr)")
        #expect(second.stderr.contains("hub.state_directory"), "\(second.stderr)")
    }
}
