import Foundation
import Testing

@Suite(.serialized) struct HubRobustnessTests {
    @Test func malformedMessagesAreCountedAndDroppedWhileTheHubKeepsServing() async throws {
        let dir = E2E.temporaryDirectory()
        let config = dir + "/config.yaml"
        try """
        hub:
          external_topics: ["obs.fix.ext"]
        sinks:
          - type: file
            id: archive
            path: \(dir)/events.jsonl
            topics: ["obs.fix.ext"]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir]
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: env)
        defer { locus.kill9() }
        // Publish once the sink is subscribed (the hub is bound before the plugins start).
        #expect(await ExecSupervisionTests.waitForPlugin(dir, "archive", timeout: 20) { $0["state"] as? String == "running" } != nil)
        let inject = try await runToEnd(E2E.python, [E2E.script("inject_malformed.py"), "ipc://\(dir)/ingest.sock", "ext"], directory: dir, timeout: 30)
        #expect(inject.status == 0, "\(inject.stdout)\(inject.stderr)")
        let delivered = await waitUntil(timeout: 10) { RecordedMessage.read(dir + "/events.jsonl").count == 2 }
        #expect(delivered, "\(RecordedMessage.read(dir + "/events.jsonl").count) messages; \(locus.stderr)")
        #expect(RecordedMessage.read(dir + "/events.jsonl").map(\.seq) == [1, 2])

        let ctl = try await runToEnd(E2E.binary, ["ctl", "status", "--json"], directory: dir, environment: env, timeout: 10)
        #expect(ctl.status == 0, "\(ctl.stderr)")
        let reply = try JSONSerialization.jsonObject(with: Data(ctl.stdout.utf8)) as! [String: Any]
        let hub = (reply["result"] as! [String: Any])["hub"] as! [String: Any]
        let dropped = hub["dropped"] as! [String: Any]
        #expect(dropped["wrong_frame_count"] as? Int == 2)
        #expect(dropped["bad_topic"] as? Int == 1)
        #expect(dropped["not_json"] as? Int == 1)
        #expect(dropped["missing_field"] as? Int == 1)
        #expect(dropped["unknown_type"] as? Int == 1)
        #expect(dropped["too_large"] as? Int == 1)
        #expect(locus.process.isRunning)
        // Logged, with the reason, at a rate limit rather than per message.
        #expect(locus.stderr.contains("unknown_type"))
        let stop = await locus.terminate()
        #expect(stop.status == 0)
    }

    /// Issue 29 item 9: one publisher sending large messages faster than the hub can check them
    /// made ZeroMQ queue up to 100,000 of them in the daemon (200 KB each: past 1 GB). The ingest
    /// queue is bounded in bytes now (`HubConfiguration.ingestQueueBytes`): the rest waits in
    /// the publisher's own process, and every message still arrives and is counted.
    @Test func aClientFloodingLargeMessagesWaitsInItsOwnQueueNotInTheDaemon() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/config.yaml"
        try "hub:\n  external_topics: [\"obs.fix.\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir]
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: env)
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: dir + "/control.sock") })
        try await Task.sleep(for: .seconds(1))
        let pid = locus.process.processIdentifier
        let before = WebGatewayTests.rssMB(pid)
        let count = 3000
        let flood = try ChildProcess(E2E.python, [E2E.script("flood_large.py"), "ipc://\(dir)/ingest.sock", "\(count)", "200000"], directory: dir)
        defer { flood.kill9() }
        var peak = before
        let deadline = ContinuousClock.now + .seconds(120)
        while flood.process.isRunning, ContinuousClock.now < deadline {
            peak = max(peak, WebGatewayTests.rssMB(pid))
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(!flood.process.isRunning, "the flood did not finish within 120 s")
        #expect(flood.process.terminationStatus == 0, "\(flood.stderr)")
        // Every message reached the hub and was counted: nothing was lost on the way.
        var notJSON = 0
        for _ in 0..<50 {
            let ctl = try await runToEnd(E2E.binary, ["ctl", "status", "--json"], directory: dir, environment: env, timeout: 10)
            let reply = try JSONSerialization.jsonObject(with: Data(ctl.stdout.utf8)) as? [String: Any]
            let hub = (reply?["result"] as? [String: Any])?["hub"] as? [String: Any]
            notJSON = (hub?["dropped"] as? [String: Any])?["not_json"] as? Int ?? 0
            if notJSON == count { break }
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(notJSON == count)
        // 600 MB went through; the daemon held at most its 32 MiB queue and what is in flight.
        #expect(peak - before < 100, "RSS \(before) MB before, \(peak) MB at the peak")
        #expect(await locus.terminate().status == 0)
    }

    @Test func ctlReportsPluginsAndUnknownCommands() async throws {
        let dir = E2E.temporaryDirectory()
        let config = dir + "/config.yaml"
        try """
        sinks:
          - type: console
            id: console
            topics: ["status."]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir]
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: env)
        defer { locus.kill9() }
        let ok = await waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: dir + "/control.sock") }
        #expect(ok)
        let plugins = try await runToEnd(E2E.binary, ["ctl", "plugins", "--json"], directory: dir, environment: env, timeout: 10)
        #expect(plugins.status == 0, "\(plugins.stderr)")
        #expect(plugins.stdout.contains("\"console\""))
        let unknown = try await runToEnd(E2E.binary, ["ctl", "frobnicate"], directory: dir, environment: env, timeout: 10)
        #expect(unknown.status == 1)
        #expect(unknown.stderr.contains("unknown command 'frobnicate'"))
        #expect(await locus.terminate().status == 0)
        // Nothing is listening any more: a clear error, exit 1.
        let gone = try await runToEnd(E2E.binary, ["ctl", "status", "--timeout", "0.5"], directory: dir, environment: env, timeout: 10)
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("locus run"))
    }

    @Test func bindFailureIsARuntimeErrorWithExitCodeOne() async throws {
        let dir = E2E.temporaryDirectory()
        let port = Int.random(in: 40000...49000)
        let first = dir + "/first.yaml"
        try "hub:\n  publish: [\"tcp://127.0.0.1:\(port)\"]\n".write(toFile: first, atomically: true, encoding: .utf8)
        // Each its own state directory: the journal's lock would otherwise refuse the second first.
        let holder = try ChildProcess(E2E.binary, ["run", first], directory: dir,
                                      environment: ["LOCUS_RUNTIME_DIR": dir + "/a", "LOCUS_STATE_DIR": dir + "/a"])
        defer { holder.kill9() }
        #expect(await waitUntil(timeout: 10) { holder.stderr.contains("hub started") }, "\(holder.stderr)")
        // A second daemon wanting the same port cannot bind it: a runtime failure, exit 1, endpoint named.
        let run = try await runToEnd(E2E.binary, ["run", first], directory: dir,
                                     environment: ["LOCUS_RUNTIME_DIR": dir + "/b", "LOCUS_STATE_DIR": dir + "/b"], timeout: 10)
        #expect(run.status == 1)
        #expect(run.stderr.contains("tcp://127.0.0.1:\(port)"), "\(run.stderr)")
    }
}
