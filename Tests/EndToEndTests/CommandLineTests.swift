import Foundation
import Testing

@Suite struct CommandLineTests {
    @Test func checkReportsConfigErrorsWithPositionAndExitCodeTwo() async throws {
        let dir = E2E.temporaryDirectory()
        let config = dir + "/bad.yaml"
        try """
        sources:
          - type: replay
            id: walk
            file: \(E2E.fixture("walk-short.jsonl"))
            sped: 10
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let r = try await runToEnd(E2E.binary, ["check", config], directory: dir)
        #expect(r.status == 2)
        #expect(r.stderr.contains("bad.yaml:5:5: error:"), "\(r.stderr)")
        #expect(r.stderr.contains("speed"), "suggests the right key: \(r.stderr)")
    }

    @Test func theDefaultConfigChecksClean() async throws {
        let r = try await runToEnd(E2E.binary, ["check", E2E.repoRoot + "/config.yaml"], directory: E2E.repoRoot)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("OK"))
    }

    @Test func usageErrorsExitTwoAndHelpAndVersionExitZero() async throws {
        let dir = E2E.temporaryDirectory()
        #expect(try await runToEnd(E2E.binary, ["frobnicate"], directory: dir).status == 2)
        #expect(try await runToEnd(E2E.binary, ["sub", "NOT A TOPIC"], directory: dir).status == 2)
        let help = try await runToEnd(E2E.binary, ["--help"], directory: dir)
        #expect(help.status == 0)
        for sub in ["run", "check", "sub", "record", "replay", "ctl", "plugins"] { #expect(help.stdout.contains(sub)) }
        #expect(help.stdout.contains("Exit codes"))
        let version = try await runToEnd(E2E.binary, ["--version"], directory: dir)
        #expect(version.status == 0)
        #expect(version.stdout.contains("."))
    }

    @Test func subPrintsEventsAndExitsCleanlyOnCtrlC() async throws {
        let dir = E2E.temporaryDirectory()
        let env = ["LOCUS_RUNTIME_DIR": dir]
        let config = dir + "/config.yaml"
        try """
        sources:
          - type: replay
            id: walk
            file: \(E2E.fixture("walk-short.jsonl"))
            speed: 200
            start_delay: 1
        """.write(toFile: config, atomically: true, encoding: .utf8)
        // No --endpoint: `sub` finds the daemon's default endpoint from the environment.
        let sub = try ChildProcess(E2E.binary, ["sub", "obs.fix."], directory: dir, environment: env)
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: env)
        let printed = await waitUntil(timeout: 15) { sub.stdout.contains("obs.fix.gps0 [walk#") }
        #expect(printed, "\(sub.stdout) \(sub.stderr)")
        kill(sub.process.processIdentifier, SIGINT)
        #expect(await sub.wait(timeout: 2) == 0)
        #expect(await locus.terminate().status == 0)
    }

    @Test func pluginsListsEveryTypeWithKeysAndDefaults() async throws {
        let r = try await runToEnd(E2E.binary, ["plugins"], directory: E2E.temporaryDirectory())
        #expect(r.status == 0)
        for type in ["replay", "exec", "example-speed-alert", "console", "file"] { #expect(r.stdout.contains(type)) }
        #expect(r.stdout.contains("speed: number or \"max\", default 1"))
        #expect(r.stdout.contains("file: string, required"))
    }

    @Test func recordWritesWhatTheHubPublishes() async throws {
        let dir = E2E.temporaryDirectory()
        let env = ["LOCUS_RUNTIME_DIR": dir]
        let config = dir + "/config.yaml"
        try """
        sources:
          - type: replay
            id: walk
            file: \(E2E.fixture("walk-short.jsonl"))
            speed: max
            start_delay: 1.5
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let record = try ChildProcess(E2E.binary, ["record", "--output", dir + "/rec.jsonl", "--endpoint", "ipc://\(dir)/publish.sock", "obs.fix."], directory: dir)
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: env)
        let fixes = RecordedMessage.read(E2E.fixture("walk-short.jsonl")).count
        let done = await waitUntil(timeout: 20) { RecordedMessage.read(dir + "/rec.jsonl").count == fixes }
        #expect(done, "recorded \(RecordedMessage.read(dir + "/rec.jsonl").count) of \(fixes): \(record.stderr) \(locus.stderr)")
        #expect(await record.terminate().status == 0)
        #expect(await locus.terminate().status == 0)
        // And the recording replays: `locus replay` reads what `locus record` wrote.
        let replayed = try await runToEnd(E2E.binary, ["replay", dir + "/rec.jsonl", "--config", E2E.repoRoot + "/Tests/Golden/speed-alert/config.yaml", "--include-input"], directory: dir)
        #expect(replayed.status == 0, "\(replayed.stderr)")
        #expect(replayed.stdout.split(separator: "\n").filter { $0.contains("\"obs.fix.") }.count == fixes)
    }
}
