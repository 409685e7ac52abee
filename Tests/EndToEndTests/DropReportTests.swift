import Foundation
import Testing

/// Issue 14, item 1: drops are announced on the bus as rate-limited `status.drops` events
/// (topic `status.locus.drops`) that agree with `locus ctl status` and validate against their
/// schema; a quiet daemon publishes none.
@Suite(.serialized) struct DropReportTests {
    @Test func dropsAreReportedOncePerIntervalAndAgreeWithStatus() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/config.yaml"
        try """
        hub:
          status_interval: 1
          external_topics: ["obs.fix.ext"]
        services:
          - type: standard
            id: here
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir]
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: env)
        defer { locus.kill9() }
        #expect(await ExecSupervisionTests.waitForPlugin(dir, "here", timeout: 20) { $0["state"] as? String == "running" } != nil,
                "\(locus.stderr)")
        let sub = try ChildProcess(E2E.binary, ["sub", "--json", "--duration", "7", "-e", "ipc://\(dir)/publish.sock", "status.locus."],
                                   directory: dir, environment: env)
        defer { sub.kill9() }
        // Quiet for two intervals first: nothing may be published.
        try await Task.sleep(nanoseconds: 2_500_000_000)
        #expect(sub.stdout.isEmpty, "\(sub.stdout)")
        // Two bursts of malformed messages within one interval.
        for _ in 0..<2 {
            let inject = try await runToEnd(E2E.python, [E2E.script("inject_malformed.py"), "ipc://\(dir)/ingest.sock", "ext"],
                                            directory: dir, timeout: 30)
            #expect(inject.status == 0, "\(inject.stderr)")
        }
        #expect(await sub.wait(timeout: 15) == 0, "\(sub.stderr)")
        let status = try await runToEnd(E2E.binary, ["ctl", "status", "--json"], directory: dir, environment: env)
        let hub = ((try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["result"] as? [String: Any])?["hub"] as? [String: Any]
        let dropped = (hub?["dropped"] as? [String: Int] ?? [:]).filter { $0.value > 0 }
        #expect(!dropped.isEmpty, "\(status.stdout)")

        let events = RecordedMessage.read(lines: sub.stdout).filter { $0.type == "status.drops" }
        #expect(!events.isEmpty && events.count <= 3, "\(sub.stdout)")
        // The increments add up to the totals, which are the hub's counters.
        var sum: [String: Int] = [:]
        for e in events {
            for (k, v) in e.payload["dropped"] as? [String: Int] ?? [:] { sum[k, default: 0] += v }
        }
        let expected = Dictionary(uniqueKeysWithValues: dropped.map { ("hub.\($0.key)", $0.value) })
        #expect(sum == expected, "events \(sum), status \(expected)")
        #expect(events.last?.payload["totals"] as? [String: Int] == expected)
        #expect(events.allSatisfy { $0.topic == "status.locus.drops" && $0.producer == "locus" })

        let file = dir + "/drops.jsonl"
        try sub.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let check = try await runToEnd(E2E.python, [E2E.repoRoot + "/tools/validate_messages.py", file], directory: dir)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(locus.stderr.contains("messages were dropped"), "\(locus.stderr)")
        #expect(await locus.terminate().status == 0)
    }
}

extension RecordedMessage {
    static func read(lines text: String) -> [RecordedMessage] {
        text.split(separator: "\n").map { read(line: String($0)) }
    }
}
