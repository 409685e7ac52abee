import Foundation
import Testing

/// Issue 15, item 1: CURVE on TCP endpoints with `locus keygen` keys, against `locus run`, from
/// pyzmq and from Locus's own clients.
@Suite(.serialized) struct CurveEndToEndTests {
    static func keygen(_ name: String, _ dir: String) async throws {
        let r = try await runToEnd(E2E.binary, ["keygen", name, "-d", dir], directory: dir)
        #expect(r.status == 0, "\(r.stderr)")
    }

    @Test func onlyAuthorizedKeysReadTheEndpoint() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let keys = dir + "/keys"
        for name in ["server", "alice", "eve", "wrong"] { try await Self.keygen(name, keys) }
        // Secret certificates are private whatever the umask; keygen never overwrites one.
        let mode = try FileManager.default.attributesOfItem(atPath: keys + "/alice.key_secret")[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let again = try await runToEnd(E2E.binary, ["keygen", "alice", "-d", keys], directory: dir)
        #expect(again.status != 0 && again.stderr.contains("never overwrites"))
        try FileManager.default.createDirectory(atPath: dir + "/clients", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: keys + "/alice.key", toPath: dir + "/clients/alice.key")

        let publish = try MetricsTests.freePort()
        let control = try MetricsTests.freePort()
        let config = dir + "/config.yaml"
        try """
        hub:
          publish:
            - ipc://\(dir)/publish.sock
            - endpoint: tcp://127.0.0.1:\(publish)
              curve: {secret_key_file: keys/server.key_secret, authorized_keys: clients}
          control:
            endpoint: tcp://127.0.0.1:\(control)
            curve: {secret_key_file: keys/server.key_secret, authorized_keys: clients}
        sources:
          - {type: replay, id: walk, file: \(E2E.fixture("walk-short.jsonl")), speed: 20, loop: true}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 20) { locus.stderr.contains("hub started") }, "\(locus.stderr)")

        let clients = try await runToEnd(E2E.python, [E2E.script("curve_clients.py"), "tcp://127.0.0.1:\(publish)", keys, "3"], directory: dir)
        #expect(clients.status == 0, "\(clients.stderr)")
        let counts = try JSONSerialization.jsonObject(with: Data(clients.stdout.utf8)) as? [String: Int] ?? [:]
        #expect(counts["alice", default: 0] > 5, "\(clients.stdout)")
        #expect(counts["eve"] == 0 && counts["plain"] == 0 && counts["wrong_server"] == 0, "\(clients.stdout)")

        // Locus's own clients with the same keys.
        let keyArgs = ["--server-key", keys + "/server.key", "--key", keys + "/alice.key_secret"]
        let sub = try await runToEnd(E2E.binary, ["sub", "-e", "tcp://127.0.0.1:\(publish)", "-c", "3", "--json"] + keyArgs,
                                     directory: dir, timeout: 20)
        #expect(sub.status == 0 && sub.stdout.split(separator: "\n").count == 3, "\(sub.stderr)")
        let eveSub = try await runToEnd(E2E.binary, ["sub", "-e", "tcp://127.0.0.1:\(publish)", "--duration", "1.5",
                                                     "--server-key", keys + "/server.key", "--key", keys + "/eve.key_secret"],
                                        directory: dir, timeout: 20)
        #expect(eveSub.stdout.isEmpty)
        let status = try await runToEnd(E2E.binary, ["ctl", "status", "--json", "-e", "tcp://127.0.0.1:\(control)"] + keyArgs, directory: dir)
        #expect(status.status == 0, "\(status.stderr)")
        let reply = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let curve = (reply?["result"] as? [String: Any])?["curve"] as? [String: Any]
        // The key's name is the client's identity in the counters.
        #expect(((curve?["accepted"] as? [String: Any])?["alice"] as? Int ?? 0) >= 3, "\(status.stdout)")
        #expect((curve?["refused"] as? Int ?? 0) >= 1)
        let plainCtl = try await runToEnd(E2E.binary, ["ctl", "status", "--timeout", "1.5", "-e", "tcp://127.0.0.1:\(control)"], directory: dir)
        #expect(plainCtl.status != 0)
        #expect(plainCtl.stderr.contains("--server-key"), "\(plainCtl.stderr)")
        // Eve connected from two clients (pyzmq and locus sub); her key is logged once.
        let eve = try String(contentsOfFile: keys + "/eve.key", encoding: .utf8)
        let evePublic = try #require(eve.split(separator: "\"").dropFirst().first)
        let lines = locus.stderr.split(separator: "\n").filter { $0.contains("not in authorized_keys") && $0.contains(evePublic) }
        #expect(lines.count == 1, "\(locus.stderr)")
    }

    /// The C example's CURVE path (-k/-K), against a CURVE endpoint of `locus run`.
    @Test func theCSubscriberSpeaksCurve() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let make = try await runToEnd("/usr/bin/make", ["-C", E2E.repoRoot + "/examples/c", "OUT=\(dir)/csub"], directory: dir)
        #expect(make.status == 0, "\(make.stdout)\(make.stderr)")
        let check = try await runToEnd(E2E.python, [E2E.repoRoot + "/examples/c/curve_check.py", dir + "/csub", "--locus", E2E.binary],
                                       directory: dir, timeout: 60)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
    }

    @Test func networkEndpointsWithoutCurveAreConfigErrors() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        func check(_ hub: String) async throws -> (status: Int32, stdout: String, stderr: String) {
            try "hub:\n\(hub)\n".write(toFile: dir + "/c.yaml", atomically: true, encoding: .utf8)
            return try await runToEnd(E2E.binary, ["check", dir + "/c.yaml"], directory: dir)
        }
        let open = try await check("  publish: [\"tcp://0.0.0.0:5556\"]")
        #expect(open.status == 2 && open.stderr.contains("without encryption"), "\(open.stderr)")
        let ingest = try await check("  ingest: tcp://*:5555")
        #expect(ingest.status == 2 && ingest.stderr.contains("without encryption"), "\(ingest.stderr)")
        let insecure = try await check("  publish: [{endpoint: \"tcp://0.0.0.0:5556\", insecure: true}]")
        #expect(insecure.status == 0, "\(insecure.stderr)")
        let control = try await check("  control: {endpoint: \"tcp://0.0.0.0:5557\", insecure: true}")
        #expect(control.status == 2 && control.stderr.contains("never accepted for control"), "\(control.stderr)")
        let loopback = try await check("  publish: [\"tcp://127.0.0.1:5556\"]\n  control: tcp://localhost:5557")
        #expect(loopback.status == 0, "\(loopback.stderr)")
        let typo = try await check("  publish: [{endpoint: \"tcp://0.0.0.0:5556\", curv: {}}]")
        #expect(typo.status == 2 && typo.stderr.contains("unknown key 'curv'"), "\(typo.stderr)")
        // A world-readable secret key is refused at start, naming the file.
        for name in ["server"] { try await Self.keygen(name, dir) }
        chmod(dir + "/server.key_secret", 0o644)
        try FileManager.default.createDirectory(atPath: dir + "/clients", withIntermediateDirectories: true)
        try """
        hub:
          publish: [{endpoint: "tcp://127.0.0.1:\(try MetricsTests.freePort())", curve: {secret_key_file: server.key_secret, authorized_keys: clients}}]
        """.write(toFile: dir + "/run.yaml", atomically: true, encoding: .utf8)
        let run = try await runToEnd(E2E.binary, ["run", dir + "/run.yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir], timeout: 20)
        #expect(run.status != 0 && run.stderr.contains("server.key_secret has mode 644"), "\(run.stderr)")
    }
}
