import Foundation
import LocusTestKit
import Testing

/// Issue 14, item 5: the daemon's counters as Prometheus text, scraped over HTTP (`hub.metrics`)
/// and through `locus ctl metrics`, parsed by the reference Python client's parser, agreeing
/// with `locus ctl status`.
@Suite(.serialized) struct MetricsTests {
    /// A TCP port nobody listens on now (the kernel's pick).
    static func freePort() throws -> Int { try LoopbackPort.free() }

    struct Sample {
        var name: String
        var labels: [String: String]
        var value: Double
    }

    static func samples(_ jsonLines: String) -> [Sample] {
        jsonLines.split(separator: "\n").compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let name = o["name"] as? String, let value = o["value"] as? Double else { return nil }
            return Sample(name: name, labels: o["labels"] as? [String: String] ?? [:], value: value)
        }
    }

    static func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { sample in sample.name == name && labels.allSatisfy { k, v in sample.labels[k] == v } }?.value
    }

    @Test func scrapedOverHTTPAndThroughCtlAndAgreesWithStatus() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try Self.freePort()
        let config = dir + "/config.yaml"
        try """
        hub:
          metrics: "127.0.0.1:\(port)"
        sources:
          - type: replay
            id: walk
            file: \(E2E.fixture("walk-short.jsonl"))
            speed: max
        services:
          - type: standard
            id: here
            distance_filter: 0
        sinks:
          - type: file
            id: out
            path: \(dir)/out.jsonl
            topics: ["location."]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir]
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: env)
        defer { locus.kill9() }
        let finished = await ExecSupervisionTests.waitForPlugin(dir, "walk", timeout: 30) { $0["state"] as? String == "stopped" }
        #expect(finished != nil, "\(locus.stderr)")
        // The service has had every fix once the sink has its 120 updates (and their 160 location.status).
        func written() -> Int {
            ((try? String(contentsOfFile: dir + "/out.jsonl", encoding: .utf8)) ?? "").split(separator: "\n").count
        }
        _ = await waitUntil(timeout: 20) { written() >= 280 }
        #expect(written() == 280)

        let http = try await runToEnd(E2E.python, [E2E.script("scrape_metrics.py"), "http://127.0.0.1:\(port)/metrics"], directory: dir)
        #expect(http.status == 0, "\(http.stderr)")
        let scraped = Self.samples(http.stdout)
        let status = await ExecSupervisionTests.pluginStates(dir)
        func delivered(_ id: String) -> Double? {
            ((status.first { $0["plugin"] as? String == id }?["received"] as? [String: Any])?["delivered"] as? Int).map(Double.init)
        }
        #expect(Self.value(scraped, "locus_source_fixes_total", ["plugin": "walk"]) == 120)
        #expect(Self.value(scraped, "locus_plugin_state", ["plugin": "walk", "state": "stopped"]) == 1)
        #expect(Self.value(scraped, "locus_plugin_state", ["plugin": "walk", "state": "running"]) == 0)
        #expect(Self.value(scraped, "locus_plugin_state", ["plugin": "here", "state": "running"]) == 1)
        #expect(Self.value(scraped, "locus_plugin_received_total", ["plugin": "here"]) == delivered("here"))
        #expect(Self.value(scraped, "locus_plugin_received_total", ["plugin": "out"]) == 280)
        #expect(delivered("out") == 280)
        #expect(Self.value(scraped, "locus_plugin_dropped_total", ["plugin": "out", "reason": "slow_consumer"]) == 0)
        #expect(Self.value(scraped, "locus_hub_dropped_total", ["reason": "bad_topic"]) == 0)
        #expect((Self.value(scraped, "locus_hub_forwarded_total") ?? 0) >= 240)
        #expect((Self.value(scraped, "process_resident_memory_bytes") ?? 0) > 1_000_000)
        #expect(Self.value(scraped, "locus_source_last_fix_age_seconds", ["plugin": "walk"]) != nil)
        // The journal took the service's 280 events and the status events (not obs. or clock.).
        let journaled = Self.value(scraped, "locus_journal_appended_total") ?? 0
        #expect(journaled >= 280 && journaled < 300, "\(journaled)")
        #expect((Self.value(scraped, "locus_journal_bytes") ?? 0) > 280 * 100)
        #expect(Self.value(scraped, "locus_journal_not_written_total") == 0)
        #expect(Self.value(scraped, "locus_journal_oldest_age_seconds") != nil)

        // The same families through the control socket, and a second scrape only moves forward.
        let ctl = try await runToEnd(E2E.binary, ["ctl", "metrics"], directory: dir, environment: env)
        #expect(ctl.status == 0, "\(ctl.stderr)")
        let parsed = try await Self.parse(ctl.stdout, dir: dir)
        #expect(parsed.status == 0, "\(parsed.stderr)\n\(ctl.stdout.prefix(500))")
        let viaCtl = Self.samples(parsed.stdout)
        #expect(Set(viaCtl.map(\.name)) == Set(scraped.map(\.name)))
        #expect(Self.value(viaCtl, "locus_plugin_received_total", ["plugin": "out"]) == 280)
        #expect((Self.value(viaCtl, "locus_hub_forwarded_total") ?? 0) >= (Self.value(scraped, "locus_hub_forwarded_total") ?? 0))

        // Only /metrics is served.
        let other = try await runToEnd(E2E.python, [E2E.script("scrape_metrics.py"), "http://127.0.0.1:\(port)/"], directory: dir)
        #expect(other.status == 3 && other.stderr.contains("status 404"), "\(other.stdout)\(other.stderr)")
        #expect(await locus.terminate().status == 0, "\(locus.stderr)")
    }

    static func parse(_ text: String, dir: String) async throws -> (status: Int32, stdout: String, stderr: String) {
        let file = dir + "/ctl-metrics.txt"
        try text.write(toFile: file, atomically: true, encoding: .utf8)
        return try await runToEnd("/bin/sh", ["-c", "exec \"$0\" \"$1\" - < \"$2\"", E2E.python, E2E.script("scrape_metrics.py"), file],
                                  directory: dir)
    }

    @Test func aBadAddressIsAConfigErrorAndABusyPortStopsTheDaemon() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["LOCUS_RUNTIME_DIR": dir]
        let bad = dir + "/bad.yaml"
        try "hub:\n  metrics: \"9464\"\n".write(toFile: bad, atomically: true, encoding: .utf8)
        let check = try await runToEnd(E2E.binary, ["check", bad], directory: dir, environment: env)
        #expect(check.status == 2, "\(check.stdout)\(check.stderr)")
        #expect(check.stderr.contains("'9464' is not host:port; use host:port, such as 127.0.0.1:9464"), "\(check.stderr)")

        // Someone else has the port: the daemon says so and exits non-zero.
        let port = try Self.freePort()
        let holder = try ChildProcess(E2E.python, ["-c", """
            import socket, time
            s = socket.socket(); s.bind(("127.0.0.1", \(port))); s.listen(1); print("ready", flush=True); time.sleep(60)
            """], directory: dir)
        defer { holder.kill9() }
        _ = await waitUntil(timeout: 10) { holder.stdout.contains("ready") }
        let busy = dir + "/busy.yaml"
        try "hub:\n  metrics: \"127.0.0.1:\(port)\"\nsources:\n  - type: replay\n    id: walk\n    file: \(E2E.fixture("walk-short.jsonl"))\n"
            .write(toFile: busy, atomically: true, encoding: .utf8)
        let run = try await runToEnd(E2E.binary, ["run", busy], directory: dir, environment: env, timeout: 30)
        #expect(run.status != 0, "\(run.stderr)")
        #expect(run.stderr.contains("cannot listen on 127.0.0.1:\(port): port \(port) is in use") && run.stderr.contains("change hub.metrics"),
                "\(run.stderr)")
    }
}
