import Foundation
import Testing

/// `locus sub` reports breaks in each producer's sequence numbers (docs/protocol.md 4.2): on
/// stderr as they happen with a summary at the end, and in --json as a "gap" field that the
/// recording reader and tools/validate_messages.py accept. Before: it said nothing.
@Suite(.serialized) struct SubGapTests {
    @Test func gapsAndRestartsAreReportedOnStderrAndInJSON() async throws {
        let dir = E2E.temporaryDirectory()
        let sub = try await Self.subscribe(in: dir, whilePublishing: ["1", "2", "3", "6", "7", "1", "2"])

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
    }

    /// Issue 30, item 1: the README's `locus sub obs.fix. example.` on the default config
    /// printed `gap: gps0 seq 160 -> 171, 10 message(s) lost, or on topics not subscribed to` for
    /// every fix (the replay's clock.tick messages share its seq) although nothing was lost.
    /// Now subscribers to prefixes compare topic_seq: `locus sub`, the Python library's example
    /// and the C example all stay quiet.
    @Test func thePrefixSubscriptionOfTheReadmeReportsNoGapWhenNothingIsLost() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let env = ["LOCUS_RUNTIME_DIR": dir, "LOCUS_STATE_DIR": dir + "/state", "LOCUS_WEB_PORT": "\(try MetricsTests.freePort())",
                   "LOCUS_DEMO_PORT": "\(try MetricsTests.freePort())", "LOCUS_REPLAY_SPEED": "600"]
        let make = try await runToEnd("/usr/bin/make", ["-C", E2E.repoRoot + "/examples/c", "OUT=\(dir)/csub"], directory: dir)
        #expect(make.status == 0, "\(make.stdout)\(make.stderr)")
        let locus = try ChildProcess(E2E.binary, ["run", E2E.repoRoot + "/config.yaml"], directory: dir, environment: env)
        defer { locus.kill9() }
        let endpoint = "ipc://\(dir)/publish.sock"
        #expect(await waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: dir + "/publish.sock") }, "\(locus.stderr)")
        // As the README writes it: the endpoint comes from the runtime directory.
        let sub = try ChildProcess(E2E.binary, ["sub", "--duration", "8", "obs.fix.", "example."], directory: dir, environment: env)
        defer { sub.kill9() }
        let py = try ChildProcess(E2E.python, [E2E.repoRoot + "/examples/python/subscriber.py", "--endpoint", endpoint,
                                               "--count", "40", "--timeout", "30", "obs.fix.", "example."], directory: dir)
        defer { py.kill9() }
        let c = try ChildProcess(dir + "/csub", ["-e", endpoint, "-n", "40", "-t", "30000", "obs.fix.", "example."], directory: dir)
        defer { c.kill9() }
        #expect(await sub.wait(timeout: 30) == 0, "\(sub.stderr)")
        #expect(await py.wait(timeout: 30) == 0, "\(py.stderr)")
        #expect(await c.wait(timeout: 30) == 0, "\(c.stderr)")
        let fixes = sub.stdout.split(separator: "\n").filter { $0.contains("obs.fix.") }.count
        #expect(fixes >= 40, "\(sub.stdout.suffix(2000))")
        #expect(!sub.stderr.contains("gap") && !sub.stderr.contains("missed"), "\(sub.stderr)")
        #expect(py.stdout.split(separator: "\n").count == 40 && !py.stderr.contains("gap"), "\(py.stderr)")
        #expect(c.stdout.split(separator: "\n").count == 40 && !c.stderr.contains("gap"), "\(c.stderr)")
        #expect(await locus.terminate().status == 0)
    }

    /// With topic_seq a prefix subscriber still sees real loss, now said as loss: here the
    /// producer's seq jumps (its other topics) without a report, and the jump in topic_seq is one.
    @Test func aPrefixSubscriberReportsAJumpInTopicSeqAsLossAndIgnoresJumpsInSeq() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let sub = try await Self.subscribe(in: dir, whilePublishing: ["1/1", "3/2", "5/3", "9/5", "10/6", "1/1"])
        let gaps = sub.stdout.split(separator: "\n").compactMap { line -> [String: Any]? in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["gap"] as? [String: Any]
        }
        #expect(gaps.map { [$0["producer"] as? String, $0["topic"] as? String, "\($0["after"]!)", "\($0["seq"]!)", "\($0["missed"]!)"] }
                == [["ext", "obs.fix.ext", "3", "5", "1"], ["ext", "obs.fix.ext", "6", "1", "0"]], "\(sub.stdout)")
        #expect(sub.stderr.contains("locus sub: gap: ext obs.fix.ext topic_seq 3 -> 5, 1 message(s) lost\n"), "\(sub.stderr)")
        #expect(sub.stderr.contains("locus sub: ext obs.fix.ext restarted (topic_seq 6 -> 1)"), "\(sub.stderr)")
        #expect(sub.stderr.contains("1 missed in 2 gap(s) (ext 1)"), "\(sub.stderr)")
    }

    /// A daemon taking `obs.fix.ext` from outside, `locus sub --json obs.fix.ext` for 6 s, and
    /// publish_sequence.py sending `numbers` (SEQ or SEQ/TOPIC_SEQ) as producer `ext`; returns
    /// the finished subscriber once the daemon has stopped cleanly.
    static func subscribe(in dir: String, whilePublishing numbers: [String]) async throws -> ChildProcess {
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
        try await Task.sleep(nanoseconds: 500_000_000)
        let publish = try await runToEnd(E2E.python, [E2E.script("publish_sequence.py"), "ipc://\(dir)/ingest.sock", "ext"] + numbers,
                                         directory: dir, timeout: 30)
        #expect(publish.status == 0, "\(publish.stdout)\(publish.stderr)")
        #expect(await sub.wait(timeout: 15) == 0, "\(sub.stderr)")
        sub.kill9() // if it is still running after the wait
        #expect(await locus.terminate().status == 0)
        return sub
    }
}
