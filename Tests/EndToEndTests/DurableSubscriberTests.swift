import Foundation
import Testing

/// Issue 14, item 4: examples/python/durable_subscriber.py killed with SIGKILL and started again
/// ten times during a replay writes, in total, every event of the uninterrupted run exactly once
/// and in order. The uninterrupted run is `locus sub --since all` afterwards (everything the
/// journal holds on the same topics), and its lines must equal the subscriber's byte for byte.
@Suite(.serialized) struct DurableSubscriberTests {
    static let kills = 10

    @Test func killedTenTimesItStillWritesEveryEventOnceInOrder() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // At 200x the 33-minute walk takes about 10 s.
        try CatchupTests.config(dir, speed: "200").write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir, "LOCUS_LOG_LEVEL": "warning"]
        let locus = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: env)
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 15) { FileManager.default.fileExists(atPath: dir + "/catchup.sock") })

        let script = E2E.repoRoot + "/examples/python/durable_subscriber.py"
        let args = [script, "--out", dir + "/events.jsonl", "--state", dir + "/state.json", "--topic", "location.", "--topic", "region.",
                    "--since", "all", "--checkpoint-every", "7"]
        for _ in 0..<Self.kills {
            let sub = try ChildProcess(E2E.python, args, directory: dir, environment: env)
            try await Task.sleep(nanoseconds: UInt64.random(in: 300_000_000...900_000_000))
            sub.kill9()
            _ = await sub.wait(timeout: 5)
            #expect(!sub.stderr.contains("Traceback"), "\(sub.stderr)")
        }
        // Once more until the replay is over, then a clean stop.
        let last = try ChildProcess(E2E.python, args, directory: dir, environment: env)
        _ = await ExecSupervisionTests.waitForPlugin(dir, "walk", timeout: 60) { $0["state"] as? String == "stopped" }
        try await Task.sleep(nanoseconds: 1_000_000_000)
        let end = await last.terminate()
        #expect(end.status == 0, "after \(end.seconds) s: \(last.stderr)")
        #expect(!last.stderr.contains("lost"), "\(last.stderr)")

        let all = try await runToEnd(E2E.binary, ["sub", "location.", "region.", "--json", "--since", "all", "--duration", "2"],
                                     directory: dir, environment: env)
        let expected = all.stdout.split(separator: "\n").map(String.init)
        let got = ((try? String(contentsOfFile: dir + "/events.jsonl", encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        #expect(expected.count > 100, "\(expected.count)")
        #expect(got == expected, "durable \(got.count) lines, uninterrupted \(expected.count); first difference at \(Array(zip(got, expected)).firstIndex { $0.0 != $0.1 } ?? min(got.count, expected.count))")
        #expect(await locus.terminate().status == 0)
    }
}
