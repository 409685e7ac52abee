import Foundation
import Testing

/// `locus sub` reports breaks in each producer's sequence numbers (docs/protocol.md 4.2): on
/// stderr as they happen with a summary at the end, and in --json as a "gap" field that the
/// recording reader and tools/validate_messages.py accept. Before: it said nothing.
@Suite(.serialized) struct SubGapTests {
    @Test func gapsAndRestartsAreReportedOnStderrAndInJSON() async throws {
        let dir = E2E.temporaryDirectory()
        let config = dir + "/config.yaml"
        try """
        hub:
          external_topics: ["obs.fix.ext"]
        services:
          - type: standard
            id: here
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir]
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: env)
        defer { locus.kill9() }
        let running = await ExecSupervisionTests.waitForPlugin(dir, "here", timeout: 20) { $0["state"] as? String == "running" }
        #expect(running != nil, "\(locus.stderr)")
        let sub = try ChildProcess(E2E.binary, ["sub", "--json", "--duration", "6", "-e", "ipc://\(dir)/publish.sock", "obs.fix.ext"],
                                   directory: dir, environment: env)
        defer { sub.kill9() }
        try await Task.sleep(nanoseconds: 500_000_000)
        let publish = try await runToEnd(E2E.python, [E2E.script("publish_sequence.py"), "ipc://\(dir)/ingest.sock", "ext",
                                                      "1", "2", "3", "6", "7", "1", "2"], directory: dir, timeout: 30)
        #expect(publish.status == 0, "\(publish.stdout)\(publish.stderr)")
        #expect(await sub.wait(timeout: 15) == 0, "\(sub.stderr)")

        let lines = sub.stdout.split(separator: "\n").map(String.init)
        let gaps = lines.compactMap { line -> [String: Any]? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["gap"] as? [String: Any]
        }
        #expect(gaps.map { [$0["producer"] as? String, "\($0["after"]!)", "\($0["seq"]!)", "\($0["missed"]!)"] }
                == [["ext", "3", "6", "2"], ["ext", "7", "1", "0"]], "\(sub.stdout)")
        #expect(gaps.last?["restarted"] as? Bool == true)
        #expect(sub.stderr.contains("locus sub: gap: ext seq 3 -> 6, 2 message(s) lost, or on topics not subscribed to"), "\(sub.stderr)")
        #expect(sub.stderr.contains("locus sub: ext restarted (seq 7 -> 1)"), "\(sub.stderr)")
        #expect(sub.stderr.contains("2 missed in 2 gap(s) (ext 2)"), "\(sub.stderr)")

        // The lines stay recording lines: the validator (and so `locus replay`) accepts them.
        let file = dir + "/sub.jsonl"
        try sub.stdout.write(toFile: file, atomically: true, encoding: .utf8)
        let check = try await runToEnd(E2E.python, [E2E.repoRoot + "/tools/validate_messages.py", file], directory: dir, timeout: 30)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        #expect(await locus.terminate().status == 0)
    }
}
