import Foundation
import Testing

/// `exec` plugins as a deployment runs them: real programs under the real `locus` binary.
@Suite(.serialized) struct ExecSupervisionTests {
    /// True while `pid` is a live process (a zombie waiting for its reaper is not).
    static func alive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8) else { return false }
        // The state letter follows the command name in parentheses.
        guard let close = stat.lastIndex(of: ")") else { return false }
        let state = stat[stat.index(close, offsetBy: 2)]
        return state != "Z" && state != "X"
    }

    static func pid(inFile path: String) -> Int32? {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        return text.split(separator: "\n").first.flatMap { Int32($0) }
    }

    /// SIGTERM to the daemon: every exec plugin gets SIGTERM at once (with a clean signal mask),
    /// each is given its own stop_timeout, the one ignoring SIGTERM is killed after its
    /// stop_timeout, the daemon exits 0 and no child is left. Before: the children had SIGTERM
    /// blocked (never ran their handlers), and the daemon aborted with "Cancellation took longer
    /// than allowed" (exit 132), leaving them orphaned.
    /// Where the programs are listed does not matter: `exec` entries under services and sinks
    /// are stopped together with the sources (before: one after another, past the budget).
    @Test(arguments: [["sources", "sources", "sources", "sources"], ["services", "sinks", "services", "sinks"]])
    func shutdownHonoursEachStopTimeoutAndLeavesNoProcess(sections: [String]) async throws {
        let dir = E2E.temporaryDirectory()
        let marks = dir + "/marks"
        try FileManager.default.createDirectory(atPath: marks, withIntermediateDirectories: true)
        let script = E2E.script("exec_child.py")
        func plugin(_ name: String, _ args: String, stopTimeout: Double) -> String {
            """
              - type: exec
                id: \(name)
                command: [\(E2E.python), \(script), \(name), \(marks), \(args)]
                stop_timeout: \(stopTimeout)

            """
        }
        let config = dir + "/config.yaml"
        let entries = [plugin("quick", "stop, 0", stopTimeout: 5), plugin("slow", "stop, 0.8", stopTimeout: 5),
                       plugin("slower", "stop, 3", stopTimeout: 5), plugin("deaf", "ignore", stopTimeout: 1.5)]
        var text = ""
        for section in ["sources", "services", "sinks"] where sections.contains(section) {
            text += "\(section):\n" + zip(sections, entries).filter { $0.0 == section }.map(\.1).joined()
        }
        try text.write(toFile: config, atomically: true, encoding: .utf8)
        let names = ["quick", "slow", "slower", "deaf"]
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        defer { locus.kill9() }
        let started = await waitUntil(timeout: 20) { names.allSatisfy { FileManager.default.fileExists(atPath: "\(marks)/\($0).started") } }
        #expect(started, "\(locus.stderr)")
        var pids: [String: Int32] = [:]
        for n in names {
            let text = try String(contentsOfFile: "\(marks)/\(n).started", encoding: .utf8)
            pids[n] = Self.pid(inFile: "\(marks)/\(n).started")
            // No signal blocked: the handler can run.
            #expect(text.contains("SigBlk:\t0000000000000000"), "\(n): \(text)")
        }

        let stop = await locus.terminate(timeout: 20)
        #expect(stop.status == 0, "\(locus.stderr)")
        // The 3 s handler was waited for; the four were stopped together, not one after another
        // (3 + 1.5 + 0.8 would be 5.3 s).
        #expect(stop.seconds >= 2.9, "\(stop.seconds)")
        #expect(stop.seconds < 5.2, "\(stop.seconds)")
        for n in ["quick", "slow", "slower"] {
            #expect(FileManager.default.fileExists(atPath: "\(marks)/\(n).term"), "\(n) got SIGTERM")
            #expect(FileManager.default.fileExists(atPath: "\(marks)/\(n).done"), "\(n) finished its handler")
        }
        #expect(!FileManager.default.fileExists(atPath: "\(marks)/deaf.term"))
        for (n, pid) in pids { #expect(!Self.alive(pid), "\(n) (pid \(pid)) outlived the daemon") }
        #expect(!locus.stderr.contains("Fatal error"), "\(locus.stderr)")
        #expect(locus.stderr.contains("did not stop within stop_timeout"), "the SIGKILL is logged")
    }

    /// The plugin's state follows the process it started: when it exits leaving a background
    /// process behind, it is reported failed and restarted, and the leftover process is stopped.
    /// Before: `running` with 0 restarts 70 s later, and the `sleep` outlived the daemon.
    @Test func aChildThatExitsIsFailedEvenIfItsBackgroundProcessLivesOn() async throws {
        let dir = E2E.temporaryDirectory()
        let config = dir + "/config.yaml"
        try """
        sources:
          - type: exec
            id: bg
            command: [/bin/sh, -c, "sleep 997 & echo $! >> \(dir)/sleepers; exit 4"]
            stop_timeout: 1
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir]
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: env)
        defer { locus.kill9() }
        let bg = await Self.waitForPlugin(dir, "bg", timeout: 15) { ($0["restarts"] as? Int ?? 0) >= 1 }
        #expect(bg != nil, "\(locus.stderr)")
        #expect(["failed", "restarting", "starting", "running"].contains(bg?["state"] as? String ?? ""), "\(String(describing: bg))")
        #expect(locus.stderr.contains("exited with status 4"), "\(locus.stderr)")
        let sleepers = ((try? String(contentsOfFile: dir + "/sleepers", encoding: .utf8)) ?? "")
            .split(separator: "\n").compactMap { Int32($0) }
        #expect(!sleepers.isEmpty)
        // Each run's `sleep` is stopped with its run, not left behind.
        let first = try #require(sleepers.first)
        #expect(await waitUntil(timeout: 5) { !Self.alive(first) }, "sleep \(first) still running")
        #expect(await locus.terminate(timeout: 10).status == 0, "\(locus.stderr)")
        let all = ((try? String(contentsOfFile: dir + "/sleepers", encoding: .utf8)) ?? "").split(separator: "\n").compactMap { Int32($0) }
        for pid in all { #expect(!Self.alive(pid), "sleep \(pid) outlived the daemon") }
    }

    /// A program flooding its standard error gets `log_lines_per_second` lines logged and a
    /// counted summary. Before: every line was logged (750 MB in 40 s).
    @Test func aStderrFloodIsLoggedAtTheLimitAndCounted() async throws {
        let dir = E2E.temporaryDirectory()
        let config = dir + "/config.yaml"
        try """
        sources:
          - type: exec
            id: flood
            command: [/bin/sh, -c, "yes flood-line >&2"]
            log_lines_per_second: 50
            stop_timeout: 1
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        defer { locus.kill9() }
        try await Task.sleep(nanoseconds: 3_000_000_000)
        let stop = await locus.terminate(timeout: 10)
        #expect(stop.status == 0)
        let logged = locus.stderr.split(separator: "\n").filter { $0.contains("flood-line") }.count
        // About 50 a second plus a burst of 100, over ~3 s; the flood itself is millions of lines.
        #expect(logged > 50 && logged < 400, "\(logged) lines logged")
        let summary = try #require(locus.stderr.split(separator: "\n").last { $0.contains("were not logged") }, "no summary")
        let suppressed = summary.split(separator: " ").first { $0.hasPrefix("suppressed_total=") }
            .flatMap { UInt64($0.dropFirst("suppressed_total=".count)) } ?? 0
        #expect(suppressed > 10_000, "\(summary)")
    }

    /// `locus ctl status --json` of the daemon in `dir`: the plugin entries (empty if no answer).
    static func pluginStates(_ dir: String) async -> [[String: Any]] {
        guard let r = try? await runToEnd(E2E.binary, ["ctl", "status", "--json", "--timeout", "2"], directory: dir,
                                          environment: ["LOCUS_RUNTIME_DIR": dir], timeout: 10),
              let o = try? JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any],
              let plugins = (o["result"] as? [String: Any])?["plugins"] as? [[String: Any]] else { return [] }
        return plugins
    }

    /// Issue 30 item 6: a program that exits at once with the same error every time (a missing
    /// Python module) is `failed` after three tries, with its last stderr line, and not
    /// restarted. Before: restarted for ever at up to 30 s, the reason only "exited with status 1".
    @Test func aProgramFailingTheSameWayAtEveryStartIsFailedWithItsLastErrorLine() async throws {
        let dir = E2E.temporaryDirectory()
        let config = dir + "/config.yaml"
        try """
        sources:
          - type: exec
            id: broken
            command: [/bin/sh, -c, "echo Traceback >&2; echo \\"ModuleNotFoundError: No module named 'zmq'\\" >&2; exit 1"]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        defer { locus.kill9() }
        let failed = await Self.waitForPlugin(dir, "broken", timeout: 15) { $0["state"] as? String == "failed" && ($0["restarts"] as? Int ?? 0) >= 2 }
        #expect(failed != nil, "\(locus.stderr)")
        let reason = failed?["reason"] as? String ?? ""
        #expect(reason.contains("/bin/sh exited with status 1: ModuleNotFoundError: No module named 'zmq'"), "\(reason)")
        #expect(reason.contains("not restarted"), "\(reason)")
        // And it stays so: no more restarts.
        try await Task.sleep(for: .seconds(3))
        let later = await Self.pluginStates(dir).first { $0["plugin"] as? String == "broken" }
        #expect(later?["state"] as? String == "failed")
        #expect(later?["restarts"] as? Int == failed?["restarts"] as? Int)
        #expect(await locus.terminate(timeout: 10).status == 0, "\(locus.stderr)")
    }

    /// A program that fails differently each time (here its pid) is restarted for ever; SIGTERM
    /// while it waits out a backoff ends the daemon at once. Before: after the wait (5.6 s).
    @Test func sigtermDuringARestartBackoffStopsAtOnce() async throws {
        let dir = E2E.temporaryDirectory()
        let config = dir + "/config.yaml"
        try """
        sources:
          - type: exec
            id: flaky
            command: [/bin/sh, -c, "echo attempt $$$$ >&2; exit 3"]  # $$ in the config is one $
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        defer { locus.kill9() }
        // The fourth wait is 4 s long.
        let waiting = await Self.waitForPlugin(dir, "flaky", timeout: 20) {
            $0["state"] as? String == "restarting" && ($0["retry_in"] as? Double ?? 0) >= 4
        }
        #expect(waiting != nil, "\(locus.stderr)")
        let stop = await locus.terminate(timeout: 10)
        #expect(stop.status == 0, "\(locus.stderr)")
        #expect(stop.seconds < 1, "\(stop.seconds) s")
    }

    /// A relative path among the arguments means what it does in the config: the program runs
    /// in the config file's directory (exec contract 2), wherever `locus run` was started.
    /// Before: in the daemon's working directory, where `sh` found no `hello.sh`.
    @Test func aRelativeScriptPathResolvesAgainstTheConfigFile() async throws {
        let dir = E2E.temporaryDirectory()
        let confDir = dir + "/conf"
        try FileManager.default.createDirectory(atPath: confDir, withIntermediateDirectories: true)
        try "pwd > started\n".write(toFile: confDir + "/hello.sh", atomically: true, encoding: .utf8)
        let config = confDir + "/config.yaml"
        try """
        sources:
          - type: exec
            id: hello
            command: [/bin/sh, hello.sh]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        defer { locus.kill9() }
        let done = await Self.waitForPlugin(dir, "hello", timeout: 15) { $0["state"] as? String != "starting" && $0["state"] as? String != "running" }
        #expect(done?["state"] as? String == "stopped", "\(String(describing: done)) \(locus.stderr)")
        let pwd = try? String(contentsOfFile: confDir + "/started", encoding: .utf8)
        #expect(pwd?.trimmingCharacters(in: .whitespacesAndNewlines) == confDir)
        #expect(await locus.terminate(timeout: 10).status == 0, "\(locus.stderr)")
    }

    /// Issue 30 item 6: `Plugins/Exec/sample.yaml` as shipped, started from another directory,
    /// runs its Python program (Debian's python3, pyzmq) and publishes fixes. Before: `python3`
    /// could not open `examples/python/source.py` and was restarted for ever.
    @Test func theExecSampleRunsFromAnyDirectory() async throws {
        let dir = E2E.temporaryDirectory()
        let env = ["LOCUS_RUNTIME_DIR": dir, "LOCUS_STATE_DIR": dir]
        let locus = try ChildProcess(E2E.binary, ["run", E2E.repoRoot + "/Plugins/Exec/sample.yaml"], directory: dir, environment: env)
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: dir + "/publish.sock") })
        let sub = try await runToEnd(E2E.binary, ["sub", "--endpoint", "ipc://\(dir)/publish.sock", "--count", "2", "--json", "obs.fix.pyfix"],
                                     directory: dir, environment: env, timeout: 30)
        #expect(sub.status == 0, "\(sub.stderr) \(locus.stderr)")
        #expect(sub.stdout.split(separator: "\n").count == 2, "\(sub.stdout)")
        let state = await Self.pluginStates(dir).first { $0["plugin"] as? String == "pyfix" }
        #expect(state?["restarts"] as? Int == 0, "\(String(describing: state))")
        #expect(await locus.terminate(timeout: 10).status == 0, "\(locus.stderr)")
    }

    /// Polls `pluginStates` until `condition` holds for the entry of `plugin`, or `timeout`.
    static func waitForPlugin(_ dir: String, _ plugin: String, timeout: Double,
                              _ condition: ([String: Any]) -> Bool) async -> [String: Any]? {
        let deadline = Date().addingTimeInterval(timeout)
        var last: [String: Any]?
        while Date() < deadline {
            last = await pluginStates(dir).first { $0["plugin"] as? String == plugin }
            if let last, condition(last) { return last }
            try? await Task.sleep(nanoseconds: 200_000_000)
        }
        return last.flatMap { condition($0) ? $0 : nil }
    }
}
