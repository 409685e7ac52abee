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
        // Started first, so --wait: without it, `sub` says nothing is listening and exits.
        let sub = try ChildProcess(E2E.binary, ["sub", "--wait", "obs.fix."], directory: dir, environment: env)
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: env)
        let printed = await waitUntil(timeout: 15) { sub.stdout.contains("obs.fix.gps0 [walk#") }
        #expect(printed, "\(sub.stdout) \(sub.stderr)")
        // Issue 50 item 7: LOCUS_RUNTIME_DIR names the daemon; the ./config.yaml of another one
        // in the working directory (a checkout's) does not send `ctl` or `sub` elsewhere.
        let elsewhere = E2E.temporaryDirectory()
        try """
        hub:
          control: ipc://\(elsewhere)/other-control.sock
          publish: ipc://\(elsewhere)/other-publish.sock
        sources:
          - type: replay
            id: walk
            file: \(E2E.fixture("walk-short.jsonl"))
        """.write(toFile: elsewhere + "/config.yaml", atomically: true, encoding: .utf8)
        // ChildProcess runs in the checkout: a shell takes the command into `elsewhere`.
        func inElsewhere(_ arguments: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
            try await runToEnd("/bin/sh", ["-c", "cd \"$1\" && shift && exec \"$@\"", "sh", elsewhere, E2E.binary] + arguments,
                               directory: elsewhere, environment: env, timeout: 10)
        }
        let ctl = try await inElsewhere(["ctl", "status"])
        #expect(ctl.status == 0, "reaches the daemon of LOCUS_RUNTIME_DIR: \(ctl.stderr)")
        let subElsewhere = try await inElsewhere(["sub", "--duration", "0.5", "obs."])
        #expect(subElsewhere.status == 0, "\(subElsewhere.stderr)")
        // --config is asked for by name: it wins over the environment.
        let named = try await inElsewhere(["ctl", "status", "--config", "config.yaml"])
        #expect(named.stderr.contains("ipc://\(elsewhere)/other-control.sock"), "\(named.stderr)")
        kill(sub.process.processIdentifier, SIGINT)
        #expect(await sub.wait(timeout: 2) == 0)
        #expect(await locus.terminate().status == 0)
    }

    /// Issue 30, item 2: with no daemon, `sub` and `record` say what `ctl status` says instead of
    /// waiting silently forever, and exit 1; `record` creates no file.
    @Test func subAndRecordWithNoDaemonSayNothingIsListening() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["LOCUS_RUNTIME_DIR": dir]
        let ctl = try await runToEnd(E2E.binary, ["ctl", "status"], directory: dir, environment: env, timeout: 10)
        #expect(ctl.stderr == "locus ctl: nothing is listening at ipc://\(dir)/control.sock (no socket file) — is `locus run` running?\n")
        let sub = try await runToEnd(E2E.binary, ["sub", "obs.fix."], directory: dir, environment: env, timeout: 5)
        #expect(sub.status == 1, "\(sub.stderr)")
        #expect(sub.stderr == "locus sub: nothing is listening at ipc://\(dir)/publish.sock (no socket file) — is `locus run` running?\n")
        let record = try await runToEnd(E2E.binary, ["record", "--output", dir + "/rec.jsonl", "-e", "ipc://\(dir)/elsewhere.sock"],
                                        directory: dir, environment: env, timeout: 5)
        #expect(record.status == 1, "\(record.stderr)")
        #expect(record.stderr == "locus record: nothing is listening at ipc://\(dir)/elsewhere.sock (no socket file) — is `locus run` running?\n")
        #expect(!FileManager.default.fileExists(atPath: dir + "/rec.jsonl"))
        // --wait waits, says so once, and Ctrl-C still exits 0.
        let waiting = try ChildProcess(E2E.binary, ["sub", "--wait"], directory: dir, environment: env)
        defer { waiting.kill9() }
        #expect(await waitUntil(timeout: 5) { waiting.stderr.contains("waiting") }, "\(waiting.stderr)")
        #expect(waiting.process.isRunning)
        kill(waiting.process.processIdentifier, SIGINT)
        #expect(await waiting.wait(timeout: 2) == 0, "\(waiting.stderr)")
        #expect(waiting.stderr == "locus sub: nothing is listening at ipc://\(dir)/publish.sock yet (no socket file); waiting for `locus run` (--wait)\n")
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
        let record = try ChildProcess(E2E.binary, ["record", "--wait", "--output", dir + "/rec.jsonl", "--endpoint", "ipc://\(dir)/publish.sock", "obs.fix."], directory: dir)
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
