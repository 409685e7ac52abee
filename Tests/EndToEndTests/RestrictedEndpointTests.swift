import Foundation
import Testing

/// Issue 15, item 4: a publish endpoint with `topics` and `precision` never carries another
/// topic or a finer position, checked message by message over a whole replay against the full
/// endpoint of the same run.
@Suite(.serialized) struct RestrictedEndpointTests {
    @Test func aReducedEndpointNeverCarriesMoreThanConfigured() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/config.yaml"
        try """
        hub:
          publish:
            - ipc://\(dir)/publish.sock
            - {endpoint: "ipc://\(dir)/lan.sock", topics: ["location.", "region.", "visit.", "obs.fix."], precision: 1000}
        sources:
          - {type: replay, id: walk, file: \(E2E.fixture("walk-short.jsonl")), speed: max, start_delay: 2}
        services:
          - {type: standard, id: here, distance_filter: 0}
          - {type: visits, id: visits}
          - type: region
            id: fences
            persist: false
            regions: [{id: lake, center: {lat: 45.7702, lon: 14.3564}, radius: 150}]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        // Subscribers first (ZeroMQ reconnects until the sockets exist; the replay waits 2 s), so
        // they see the whole replay.
        func collector(_ socket: String, _ out: String) throws -> ChildProcess {
            try ChildProcess(E2E.python, [E2E.script("collect.py"), "--endpoint", "ipc://\(dir)/\(socket)", "--idle", "4",
                                          "--max-wait", "60", "--out", dir + "/" + out], directory: dir)
        }
        let full = try collector("publish.sock", "full.jsonl")
        let lan = try collector("lan.sock", "lan.jsonl")
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        defer { locus.kill9() }
        let fullDone = await full.wait(timeout: 90)
        let lanDone = await lan.wait(timeout: 30)
        #expect(fullDone == 0 && lanDone == 0, "\(full.stderr) \(lan.stderr) \(locus.stderr)")
        let check = try await runToEnd(E2E.python, [E2E.script("check_reduced.py"), dir + "/full.jsonl", dir + "/lan.jsonl", "1000",
                                                    "location.", "region.", "visit.", "obs.fix."], directory: dir)
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any]
        // The walk's fixes and updates: hundreds of positions, all checked.
        #expect((summary?["positions"] as? Int ?? 0) > 200, "\(check.stdout)")
        let status = try await runToEnd(E2E.binary, ["ctl", "status", "--json"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        let reply = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let lanStats = ((reply?["result"] as? [String: Any])?["restricted_endpoints"] as? [String: Any])?["ipc://\(dir)/lan.sock"] as? [String: Any]
        #expect(lanStats?["missed"] as? Int == 0 && lanStats?["unreducible"] as? Int == 0, "\(status.stdout)")
        #expect((lanStats?["forwarded"] as? Int ?? 0) == summary?["reduced"] as? Int, "\(status.stdout)")
    }
}
