import Foundation
import Testing

/// `locus ctl beacon …` against a running `locus run`: the real CLI, control socket, runner
/// routing and beacon service fed by a replayed advertisement recording, and the database
/// across a kill -9.
@Suite(.serialized) struct BeaconControlTests {
    static func config(_ dir: String) -> String {
        """
        services:
          - type: beacon
            id: beacons
            conditions:
              - id: desk
                uuid: 426c7565-4368-6172-6d42-6561636f6e73
                major: 3838
                minor: 4949
        sinks:
          - type: file
            id: events
            path: \(dir)/events.jsonl
            topics: ["beacon."]
        sources:
          - type: replay
            id: ble0
            file: \(E2E.repoRoot)/Tests/Golden/beacon-walkby/input.jsonl
            speed: 20
            loop: true

        """
    }

    static func ctl(_ dir: String, _ args: [String]) async throws -> (status: Int32, stdout: String, stderr: String) {
        try await runToEnd(E2E.binary, ["ctl"] + args + ["--endpoint", "ipc://\(dir)/control.sock", "--json"], directory: dir, timeout: 20)
    }

    static func result(_ reply: (status: Int32, stdout: String, stderr: String)) -> [String: Any] {
        ((try? JSONSerialization.jsonObject(with: Data(reply.stdout.utf8))) as? [String: Any])?["result"] as? [String: Any] ?? [:]
    }

    static func listed(_ dir: String) async throws -> [String: String] {
        let conditions = result(try await ctl(dir, ["beacon", "list"]))["conditions"] as? [[String: Any]] ?? []
        return Dictionary(uniqueKeysWithValues: conditions.compactMap { c in
            (c["id"] as? String).map { ($0, c["state"] as? String ?? "") }
        })
    }

    @Test func addListRecordRemoveThroughLocusCtlAndAcrossAKill() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.config(dir).write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir, "LOCUS_STATE_DIR": dir]
        var daemon = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: env)
        defer { daemon.kill9() }
        let up = await waitUntil(timeout: 20) { FileManager.default.fileExists(atPath: dir + "/control.sock") }
        #expect(up, "locus run did not start: \(daemon.stderr)")
        try await Task.sleep(nanoseconds: 500_000_000)

        // A wildcard condition on the same UUID: the walk-by's beacon satisfies it within seconds at 20×.
        let add = try await Self.ctl(dir, ["beacon", "add", "id=charm", "uuid=426c7565-4368-6172-6d42-6561636f6e73",
                                           "ranging=true", #"properties={"name":"Blue Charm"}"#])
        #expect(add.status == 0, "\(add.stdout)\(add.stderr)")
        #expect(add.stdout.contains(#""origin":"runtime""#), "\(add.stdout)")
        let satisfied = await waitUntil(timeout: 30) {
            ((try? String(contentsOfFile: dir + "/events.jsonl", encoding: .utf8)) ?? "").contains("beacon.enter.charm")
        }
        #expect(satisfied, "no beacon.enter.charm in \(dir)/events.jsonl")
        let events = (try? String(contentsOfFile: dir + "/events.jsonl", encoding: .utf8)) ?? ""
        #expect(events.contains("beacon.state.charm"), "add publishes the state")
        #expect(events.contains(#""refinement":{"format":"ibeacon","uuid":"426c7565-4368-6172-6d42-6561636f6e73","major":3838,"minor":4949}"#))

        // Refused requests: a clear error, exit 1, nothing changed.
        for bad in [["id=bad", "uuid=1234"], ["id=desk", "altbeacon=2f23"], ["id=x"], ["id=x", "uuid=426c7565-4368-6172-6d42-6561636f6e73", "minor=1"]] {
            let reply = try await Self.ctl(dir, ["beacon", "add"] + bad)
            #expect(reply.status == 1, "\(bad): \(reply.stdout)\(reply.stderr)")
            #expect(reply.stdout.contains(#""ok":false"#) && reply.stdout.contains("error"), "\(reply.stdout)")
        }
        let removeConfig = try await Self.ctl(dir, ["beacon", "remove", "id=desk"])
        #expect(removeConfig.status == 1 && removeConfig.stdout.contains("config"), "\(removeConfig.stdout)")
        #expect(Set(try await Self.listed(dir).keys) == ["charm", "desk"])

        let record = try await Self.ctl(dir, ["beacon", "record", "id=charm"])
        #expect(record.status == 0, "\(record.stdout)")
        #expect(Self.result(record)["state"] as? String == "satisfied", "\(record.stdout)")

        // kill -9 and start again: the runtime condition and its state are still there.
        daemon.kill9()
        _ = await daemon.wait(timeout: 5)
        daemon = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: env)
        let again = await waitUntil(timeout: 20) {
            ((try? String(contentsOfFile: daemon.stderrPath, encoding: .utf8)) ?? "").contains("locus running")
        }
        #expect(again, "\(daemon.stderr)")
        try await Task.sleep(nanoseconds: 500_000_000)
        let after = try await Self.listed(dir)
        #expect(Set(after.keys) == ["charm", "desk"])
        #expect(after["charm"] == "satisfied", "\(after)")

        let remove = try await Self.ctl(dir, ["beacon", "remove", "id=charm"])
        #expect(remove.status == 0, "\(remove.stdout)\(remove.stderr)")
        #expect(Set(try await Self.listed(dir).keys) == ["desk"])
        let removeAgain = try await Self.ctl(dir, ["beacon", "remove", "id=charm"])
        #expect(removeAgain.status == 1 && removeAgain.stdout.contains("no beacon condition 'charm'"), "\(removeAgain.stdout)")
        let stop = await daemon.terminate(timeout: 10)
        #expect(stop.status == 0, "\(daemon.stderr)")
    }
}
