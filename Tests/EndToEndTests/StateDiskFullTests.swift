import Foundation
import Glibc
import Testing

/// Issue 49 item 8: a full state disk. Mid-run, service commits failed and their batches' events
/// never reached the journal, said only in warnings; at boot, the daemon exited 1 and served no
/// live position at all. Now the losses are counted (`commits_failed`,
/// `inputs_lost_to_failed_commit`, `events_lost_to_failed_commit` per service, `state_store` in
/// `locus ctl status`, `status.drops`, metrics) and the episode is said once on
/// `status.locus.state`; at boot the daemon runs without the journal and the stores, serving
/// live events, and `locus ctl status` says `degraded`.
///
/// A real full disk: a small tmpfs mounted for the test (CI runs as root; skipped elsewhere, or
/// where mounting is not permitted, with the reason).
@Suite(.serialized) struct StateDiskFullTests {
    /// A tmpfs of `kilobytes`, unmounted when released.
    final class SmallDisk {
        let path: String
        init(kilobytes: Int) throws {
            path = NSTemporaryDirectory() + "locus-state-full-" + UUID().uuidString.prefix(8)
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/mount")
            p.arguments = ["-t", "tmpfs", "-o", "size=\(kilobytes)k,mode=0700", "tmpfs", path]
            p.standardError = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else {
                try? FileManager.default.removeItem(atPath: path)
                throw CocoaError(.fileWriteNoPermission)
            }
        }
        deinit {
            _ = umount2(path, Int32(MNT_DETACH))
            try? FileManager.default.removeItem(atPath: path)
        }

        /// Writes a filler until the disk is full.
        func fill() throws {
            let filler = path + "/filler"
            FileManager.default.createFile(atPath: filler, contents: nil)
            let handle = try #require(FileHandle(forWritingAtPath: filler))
            let chunk = Data(repeating: 0x55, count: 4096)
            while (try? handle.write(contentsOf: chunk)) != nil {}
            try? handle.close()
        }

        func makeRoom() throws { try FileManager.default.removeItem(atPath: path + "/filler") }

        /// nil when a tmpfs can be mounted here, else why not.
        static let unavailable: String? = {
            guard getuid() == 0 else { return "mounting a tmpfs needs root" }
            do { _ = try SmallDisk(kilobytes: 64) } catch { return "mount -t tmpfs is not permitted here" }
            return nil
        }()
    }

    static func status(_ dir: String) async throws -> [String: Any] {
        let out = try await runToEnd(E2E.binary, ["ctl", "status", "--json"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        return ((try? JSONSerialization.jsonObject(with: Data(out.stdout.utf8)) as? [String: Any])?["result"] as? [String: Any]) ?? [:]
    }

    static func counters(_ status: [String: Any], _ plugin: String) -> [String: Int] {
        let plugins = status["plugins"] as? [[String: Any]] ?? []
        return plugins.first { $0["plugin"] as? String == plugin }?["counters"] as? [String: Int] ?? [:]
    }

    static func publish(_ dir: String, first: Int, count: Int) async throws {
        let run = try await runToEnd(E2E.python, [E2E.script("publish_moving_fixes.py"), "ipc://\(dir)/ingest.sock", "ext",
                                                  "\(first)", "\(count)", "0.1"], directory: dir, timeout: 30)
        #expect(run.status == 0, "\(run.stderr)")
    }

    static func config(_ dir: String) throws -> String {
        let config = dir + "/config.yaml"
        try """
        hub:
          status_interval: 1
          external_topics: ["obs.fix.ext"]
        services:
          - type: standard
            id: here
        """.write(toFile: config, atomically: true, encoding: .utf8)
        return config
    }

    /// Test A: the disk fills while the daemon runs, then has room again.
    @Test(.enabled(if: SmallDisk.unavailable == nil, "\(SmallDisk.unavailable ?? "")"))
    func failedCommitsMidRunAreCountedAndSaidOncePerEpisode() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let disk = try SmallDisk(kilobytes: 1024)
        let env = ["LOCUS_RUNTIME_DIR": dir, "LOCUS_STATE_DIR": disk.path + "/state"]
        let locus = try ChildProcess(E2E.binary, ["run", try Self.config(dir)], directory: dir, environment: env)
        defer { locus.kill9() }
        #expect(await ExecSupervisionTests.waitForPlugin(dir, "here", timeout: 20) { $0["state"] as? String == "running" } != nil,
                "\(locus.stderr)")
        let sub = try ChildProcess(E2E.binary, ["sub", "--json", "-e", "ipc://\(dir)/publish.sock", "status.locus."],
                                   directory: dir, environment: env)
        defer { sub.kill9() }
        try await Task.sleep(nanoseconds: 500_000_000)
        try await Self.publish(dir, first: 1, count: 3)
        #expect(await waitUntil(timeout: 10) { Self.counters((try? awaitStatus(dir)) ?? [:], "here")["state_commits", default: 0] >= 3 },
                "\(locus.stderr)")

        try disk.fill()
        try await Self.publish(dir, first: 4, count: 20)
        let full = await settled { (try? awaitStatus(dir)).map { Self.counters($0, "here") } ?? [:] }
        #expect(full["commits_failed", default: 0] > 0, "\(full)")
        #expect(full["inputs_lost_to_failed_commit", default: 0] > 0, "\(full)")
        #expect(full["events_lost_to_failed_commit", default: 0] > 0, "\(full)")
        let during = try await Self.status(dir)
        let store = during["state_store"] as? [String: Any] ?? [:]
        #expect(store["state"] as? String == "failing", "\(store)")
        #expect(store["commits_failed"] as? Int == full["commits_failed"], "\(store)")

        try disk.makeRoom()
        // The service commits again once it runs again and takes a message (its restart waits
        // out a backoff): fixes until the episode is over.
        var next = 24
        let recovered = await waitUntil(timeout: 40) {
            try? awaitPublish(dir, first: next, count: 3)
            next += 3
            return ((try? awaitStatus(dir))?["state_store"] as? [String: Any])?["state"] as? String == "ok"
        }
        #expect(recovered, "\(locus.stderr)")
        try await Task.sleep(nanoseconds: 1_500_000_000)
        let metrics = try await runToEnd(E2E.binary, ["ctl", "metrics"], directory: dir, environment: env)
        #expect(metrics.stdout.contains("locus_state_store_commits_failed_total"), "\(metrics.stdout.prefix(400))")
        #expect(metrics.stdout.contains("locus_state_store_events_lost_to_failed_commit_total"))

        sub.kill9()
        let events = RecordedMessage.read(lines: sub.stdout)
        let said = events.filter { $0.topic == "status.locus.state" }.map { $0.payload["state"] as? String ?? "" }
        #expect(said == ["failed", "running"], "\(sub.stdout)")
        let drops = events.filter { $0.type == "status.drops" }
        #expect(drops.contains { ($0.payload["dropped"] as? [String: Int])?["here.events_lost_to_failed_commit"] != nil }, "\(sub.stdout)")
        let stateEvents = events.filter { $0.topic == "status.locus.state" }
        #expect(stateEvents.allSatisfy { $0.type == "status.plugin" && $0.producer == "locus" && $0.payload["plugin"] as? String == "state"
                    && $0.payload["kind"] as? String == "hub" && $0.payload["reason"] is String })
        // tools/validate_messages.py takes `status.<plugin>` topics only, and refuses the
        // runtime's `status.locus.*` status events (`status.locus.journal` too): the drops only.
        let file = dir + "/drops.jsonl"
        try sub.stdout.split(separator: "\n").filter { $0.contains("\"status.locus.drops\"") }.joined(separator: "\n")
            .write(toFile: file, atomically: true, encoding: .utf8)
        let check = try await runToEnd(E2E.python, [E2E.repoRoot + "/tools/validate_messages.py", file], directory: dir)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(await locus.terminate().status == 0)
    }

    /// Test B: the state directory is on a full disk when the daemon starts.
    @Test(.enabled(if: SmallDisk.unavailable == nil, "\(SmallDisk.unavailable ?? "")"))
    func aFullStateDiskAtBootServesLiveEventsDegraded() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let disk = try SmallDisk(kilobytes: 256)
        let state = disk.path + "/state"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
        try disk.fill()
        let env = ["LOCUS_RUNTIME_DIR": dir, "LOCUS_STATE_DIR": state]
        let locus = try ChildProcess(E2E.binary, ["run", try Self.config(dir)], directory: dir, environment: env)
        defer { locus.kill9() }
        let running = await ExecSupervisionTests.waitForPlugin(dir, "here", timeout: 20) { $0["state"] as? String == "running" }
        #expect(running != nil, "exit \(locus.process.isRunning ? "none" : "\(locus.process.terminationStatus)"): \(locus.stderr)")
        let status = try await Self.status(dir)
        #expect((status["degraded"] as? String)?.contains("state store unavailable") == true, "\(status)")
        #expect((status["state_store"] as? [String: Any])?["state"] as? String == "unavailable", "\(status)")
        #expect(locus.stderr.contains("WITHOUT the journal"), "\(locus.stderr)")

        let sub = try ChildProcess(E2E.binary, ["sub", "--json", "-e", "ipc://\(dir)/publish.sock", "obs.fix.", "location."],
                                   directory: dir, environment: env)
        defer { sub.kill9() }
        try await Task.sleep(nanoseconds: 500_000_000)
        try await Self.publish(dir, first: 1, count: 5)
        let live = await waitUntil(timeout: 10) {
            let got = RecordedMessage.read(lines: sub.stdout)
            return got.filter { $0.topic == "obs.fix.ext" }.count == 5 && got.contains { $0.topic.hasPrefix("location.") }
        }
        #expect(live, "\(sub.stdout)\n\(locus.stderr)")
        #expect(await locus.terminate().status == 0)
    }
}

/// `StateDiskFullTests.status`, for the synchronous conditions of `waitUntil`.
private func awaitStatus(_ dir: String) throws -> [String: Any] {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: E2E.binary)
    p.arguments = ["ctl", "status", "--json"]
    var env = ProcessInfo.processInfo.environment
    env["LOCUS_RUNTIME_DIR"] = dir
    p.environment = env
    let pipe = Pipe()
    p.standardOutput = pipe
    p.standardError = FileHandle.nullDevice
    try p.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return ((try JSONSerialization.jsonObject(with: data) as? [String: Any])?["result"] as? [String: Any]) ?? [:]
}

/// `StateDiskFullTests.publish`, synchronously.
private func awaitPublish(_ dir: String, first: Int, count: Int) throws {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: E2E.python)
    p.arguments = [E2E.script("publish_moving_fixes.py"), "ipc://\(dir)/ingest.sock", "ext", "\(first)", "\(count)", "0.1"]
    p.standardOutput = FileHandle.nullDevice
    p.standardError = FileHandle.nullDevice
    try p.run()
    p.waitUntilExit()
}
