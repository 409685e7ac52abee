import Foundation
import Testing

/// The real binary over real sockets, with real subscribers in Python (pyzmq) and C.
@Suite(.serialized) struct PipelineEndToEndTests {
    static let walk = E2E.fixture("walk-short.jsonl")

    static var walkFixCount: Int { RecordedMessage.read(walk).filter { $0.topic.hasPrefix("obs.fix.") }.count }

    /// Ticks the replay publishes for the fixture: one per whole second from the first fix up to
    /// the last, plus the closing one (see RecordingTimeline). The fixture's times are whole seconds.
    static var walkTickCount: Int {
        let times = (try! String(contentsOfFile: walk, encoding: .utf8)).split(separator: "\n").compactMap { line -> Date? in
            guard let r = line.range(of: "\"time\":\"") else { return nil }
            return ISO8601DateFormatter().date(from: String(line[r.upperBound...].prefix(19)) + "Z")
        }
        return Int(times.last!.timeIntervalSince(times.first!)) + 1
    }

    func config(_ dir: String, extraSources: String = "", sinks: String? = nil, speed: String = "max", startDelay: Double = 1.5) -> String {
        let path = dir + "/config.yaml"
        let text = """
        sources:
          - type: replay
            id: walk
            file: \(Self.walk)
            speed: \(speed)
            start_delay: \(startDelay)
        \(extraSources)
        services:
          - type: example-speed-alert
            id: brisk
            limit: 1.4
            hysteresis: 0.3
        sinks:
        \(sinks ?? """
          - type: file
            id: archive
            path: \(dir)/events.jsonl
        """)
        """
        try! text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func subscribersInPythonAndCReceiveEveryMessageInOrderAndAllValidateAgainstTheSchemas() async throws {
        let dir = E2E.temporaryDirectory()
        let env = ["LOCUS_RUNTIME_DIR": dir]
        // Fixes and ticks share the replay's sequence, so subscribe to both to see every number.
        let fixes = Self.walkFixCount
        let count = fixes + Self.walkTickCount
        #expect(fixes > 50)
        // Build the C example subscriber.
        let make = try await runToEnd("/usr/bin/make", ["-C", E2E.repoRoot + "/examples/c", "OUT=\(dir)/csub"], directory: dir)
        #expect(make.status == 0, "\(make.stdout)\(make.stderr)")
        let cBinary = FileManager.default.isExecutableFile(atPath: dir + "/csub") ? dir + "/csub" : E2E.repoRoot + "/examples/c/subscriber"
        // Subscribers first (ZeroMQ connects retry until the hub binds); the replay waits 1.5 s for them.
        let py = try ChildProcess(E2E.python, [E2E.script("collect.py"), "--endpoint", "ipc://\(dir)/publish.sock",
                                                "--prefix", "obs.fix.", "--prefix", "clock.tick", "--count", "\(count)", "--max-wait", "60",
                                                "--out", dir + "/py.jsonl"], directory: dir)
        let c = try ChildProcess(cBinary, ["-e", "ipc://\(dir)/publish.sock", "-n", "\(count)", "-t", "60000", "obs.fix.", "clock.tick"], directory: dir)
        let locus = try ChildProcess(E2E.binary, ["run", config(dir)], directory: dir, environment: env)
        #expect(await py.wait(timeout: 60) == 0, "python subscriber: \(py.stderr)")
        #expect(await c.wait(timeout: 30) == 0, "C subscriber: \(c.stderr)")
        // Let the service and sink catch up, then stop.
        try await Task.sleep(nanoseconds: 500_000_000)
        let stop = await locus.terminate()
        #expect(stop.status == 0, "locus: \(locus.stderr)")

        let received = RecordedMessage.read(dir + "/py.jsonl")
        #expect(received.count == count)
        #expect(received.map(\.seq) == Array(1...count))
        #expect(received.filter { $0.topic.hasPrefix("obs.fix.") }.count == fixes)
        #expect(Set(received.map(\.producer)) == ["walk"])
        let cLines = c.stdout.split(separator: "\n")
        #expect(cLines.count == count)
        #expect(!c.stderr.contains("gap"), "C subscriber saw a gap: \(c.stderr)")
        // The replay's own sequence has no gaps from 1 (ticks are interleaved on the same producer).
        let archived = RecordedMessage.read(dir + "/events.jsonl")
        let walkSeqs = archived.filter { $0.producer == "walk" }.map(\.seq)
        #expect(walkSeqs == Array(1...walkSeqs.count))
        #expect(archived.contains { $0.type == "example.speed_alert" })
        #expect(archived.contains { $0.type == "status.plugin" })
        #expect(archived.contains { $0.type == "clock.tick" })

        // Every message the pipeline emitted validates against the published JSON Schemas.
        let validation = try await runToEnd(E2E.python, [E2E.repoRoot + "/tools/validate_messages.py", dir + "/events.jsonl", dir + "/py.jsonl"], directory: dir)
        #expect(validation.status == 0, "\(validation.stdout)\(validation.stderr)")
    }

    @Test func sigtermExitsCleanlyWithinTwoSecondsAndKeepsWhatTheFileSinkWrote() async throws {
        let dir = E2E.temporaryDirectory()
        let locus = try ChildProcess(E2E.binary, ["run", config(dir, startDelay: 0)], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        let fixes = Self.walkFixCount
        // The replay plays out at full speed; wait until the sink has written all of it.
        let complete = await waitUntil(timeout: 20) {
            RecordedMessage.read(dir + "/events.jsonl").filter { $0.topic.hasPrefix("obs.fix.") }.count == fixes
        }
        #expect(complete, "file sink has \(RecordedMessage.read(dir + "/events.jsonl").count) lines; locus: \(locus.stderr)")
        let stop = await locus.terminate()
        #expect(stop.status == 0)
        #expect(stop.seconds < 2.0, "took \(stop.seconds) s to exit")
        let text = try String(contentsOfFile: dir + "/events.jsonl", encoding: .utf8)
        #expect(text.hasSuffix("\n"))
        let lines = text.split(separator: "\n")
        #expect(RecordedMessage.read(dir + "/events.jsonl").count == lines.count, "a line was cut short")
        #expect(lines.filter { $0.contains("\"obs.fix.") }.count == fixes)
        #expect(!FileManager.default.fileExists(atPath: dir + "/publish.sock"), "ipc socket file left behind")
    }

    @Test func externalPythonSourceStartedByExecIsSeenBySubscribers() async throws {
        let dir = E2E.temporaryDirectory()
        let exec = """
          - type: exec
            id: pyfix
            command: ["\(E2E.python)", "\(E2E.repoRoot)/examples/python/source.py", "--rate", "20", "--count", "10"]
            produces: ["obs.fix.pyfix"]
        """
        let sinks = """
          - type: file
            id: archive
            path: \(dir)/events.jsonl
            topics: ["obs.fix.pyfix", "status.pyfix"]
        """
        let locus = try ChildProcess(E2E.binary, ["run", config(dir, extraSources: exec, sinks: sinks, speed: "1", startDelay: 30)],
                                     directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        let got = await waitUntil(timeout: 20) { RecordedMessage.read(dir + "/events.jsonl").filter { $0.type == "obs.fix" }.count >= 10 }
        let stop = await locus.terminate()
        let messages = RecordedMessage.read(dir + "/events.jsonl")
        #expect(got, "locus: \(locus.stderr)")
        #expect(stop.status == 0)
        let fixes = messages.filter { $0.type == "obs.fix" }
        #expect(fixes.map(\.seq) == Array(1...10))
        #expect(Set(fixes.map(\.producer)) == ["pyfix"])
        #expect(fixes.allSatisfy { $0.topic == "obs.fix.pyfix" })
        // The program's stderr went into Locus's log, tagged with the plugin.
        #expect(locus.stderr.contains("pyfix"))
    }

    @Test func aFailingPluginIsRestartedWithBackoffWhileTheHubKeepsServingOthers() async throws {
        let dir = E2E.temporaryDirectory()
        // A different last line each time (its pid; `$$` in the config is one `$`): a program
        // failing the same way at every start is not restarted (ExecSupervisionTests).
        let failing = """
          - type: exec
            id: flaky
            command: ["/bin/sh", "-c", "echo about to fail, pid $$$$ >&2; exit 3"]
        """
        let sinks = """
          - type: file
            id: archive
            path: \(dir)/events.jsonl
            topics: ["status.flaky", "obs.fix."]
        """
        let locus = try ChildProcess(E2E.binary, ["run", config(dir, extraSources: failing, sinks: sinks, speed: "100", startDelay: 0)],
                                     directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        // Three restarts take 3.5 s of backoff; the replay's fixes keep coming meanwhile (the walk
        // has few in its first minutes, so wait for them too rather than assume a rate).
        let restarted = await waitUntil(timeout: 20) {
            let messages = RecordedMessage.read(dir + "/events.jsonl")
            return messages.filter { $0.topic == "status.flaky" && ($0.payload["state"] as? String) == "restarting" }.count >= 3
                && messages.filter { $0.topic.hasPrefix("obs.fix.") }.count > 5
        }
        let stop = await locus.terminate()
        #expect(restarted, "locus: \(locus.stderr)")
        #expect(stop.status == 0)
        let statuses = RecordedMessage.read(dir + "/events.jsonl").filter { $0.topic == "status.flaky" }
        let failed = statuses.filter { ($0.payload["state"] as? String) == "failed" }
        let reason = failed.first?.payload["reason"] as? String ?? ""
        #expect(reason.hasPrefix("/bin/sh exited with status 3: about to fail, pid "), "\(reason)")
        let delays = statuses.compactMap { $0.payload["retry_in"] as? Double }
        #expect(Array(delays.prefix(3)) == [0.5, 1, 2], "backoff doubles: \(delays)")
        #expect(statuses.compactMap { $0.payload["restarts"] as? Int }.max() ?? 0 >= 3)
        // Meanwhile the replay kept flowing through the hub.
        #expect(RecordedMessage.read(dir + "/events.jsonl").filter { $0.topic.hasPrefix("obs.fix.") }.count > 5)
        #expect(locus.stderr.contains("about to fail"))
    }
}
