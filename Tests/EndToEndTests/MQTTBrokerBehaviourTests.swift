import Foundation
import LocusStore
import Testing

/// Issue 16's broker tests for the `mqtt` sink: wrong credentials, TLS with a self-made CA, a
/// message over the broker's limit, and retained state for a late subscriber.
@Suite(.serialized) struct MQTTBrokerBehaviourTests {
    static func pluginCounters(_ dir: String, _ id: String) async throws -> [String: Int] {
        let status = try await runToEnd(E2E.binary, ["ctl", "status", "--json"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        let result = (try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["result"] as? [String: Any]
        let plugins = result?["plugins"] as? [[String: Any]] ?? []
        return plugins.first { $0["plugin"] as? String == id }?["counters"] as? [String: Int] ?? [:]
    }

    static func config(_ dir: String, sinks: String, speed: Int = 600, loop: Bool = false) -> String {
        """
        hub:
          state_directory: \(dir)/state
        sources:
          - {type: replay, id: walk, file: \(E2E.repoRoot)/data/recordings/cerknica-walk.jsonl, speed: \(speed), loop: \(loop)}
        services:
          - {type: standard, id: here, distance_filter: 0}
        sinks:
        \(sinks)
        """
    }

    @Test func wrongCredentialsAreReportedAndRetriedAndRightOnesDeliverWithRetainedState() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let passwords = dir + "/passwd"
        let made = try await runToEnd("/usr/bin/mosquitto_passwd", ["-b", "-c", passwords, "van7", "s3cret"], directory: dir)
        #expect(made.status == 0, "\(made.stderr)")
        let broker = try MQTTBroker(directory: dir + "/broker", extra: ["password_file \(passwords)"])
        try await broker.start()
        try "s3cret\n".write(toFile: dir + "/password", atomically: true, encoding: .utf8)
        try Self.config(dir, sinks: """
          - {type: mqtt, id: good, port: \(broker.port), device: van7, username: van7, password_file: password, reconnect_max: 0.5}
          - {type: mqtt, id: bad, port: \(broker.port), device: van7, username: van7, password: wrong, reconnect_max: 0.5, status_topic: ""}
        """).write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 30) { locus.stderr.contains("plugin=walk reason=finished") }, "\(locus.stderr)")
        try await Task.sleep(nanoseconds: 2_000_000_000)
        let bad = try await Self.pluginCounters(dir, "bad")
        let good = try await Self.pluginCounters(dir, "good")
        // The refusal is a status event with the broker's reason, logged once, retried with backoff.
        let reasons = Set(locus.stderr.split(separator: "\n").filter { $0.contains("plugin=bad reason=") })
        #expect(locus.stderr.contains("plugin=bad reason=the broker refused the connection: Connection Refused: not authorised."),
                "\(locus.stderr.suffix(3000))")
        #expect(reasons.allSatisfy { $0.contains("not authorised") }, "\(reasons)")
        let refusals = locus.stderr.split(separator: "\n").filter { $0.contains("locus.bad") && $0.contains("refused the connection; check") }
        #expect(refusals.count == 1)
        #expect((bad["connect_failures"] ?? 0) >= 3 && bad["connects"] == 0 && bad["published"] == 0, "\(bad)")
        #expect(good["connects"] == 1 && (good["published"] ?? 0) > 200 && good["acknowledged"] == good["published"], "\(good)")

        // A subscriber that comes later gets the present at once: the last location, retained.
        let late = try await runToEnd("/usr/bin/mosquitto_sub", ["-p", "\(broker.port)", "-u", "van7", "-P", "s3cret",
                                                                 "-t", "locus/van7/location/update/here", "-C", "1", "-W", "5"],
                                      directory: dir)
        var last = ""
        _ = JournalReader(directory: dir + "/state/journal").read(from: .oldest) { e in
            if String(decoding: e.topic, as: UTF8.self) == "location.update.here" { last = String(decoding: e.body, as: UTF8.self) }
            return true
        }
        #expect(late.status == 0 && late.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == last && !last.isEmpty,
                "\(late.stdout) \(late.stderr)")
        let online = try await runToEnd("/usr/bin/mosquitto_sub", ["-p", "\(broker.port)", "-u", "van7", "-P", "s3cret",
                                                                   "-t", "locus/van7/status", "-C", "1", "-W", "5"], directory: dir)
        #expect(online.stdout.contains("\"online\":true"))
        _ = await locus.terminate()
        let offline = try await runToEnd("/usr/bin/mosquitto_sub", ["-p", "\(broker.port)", "-u", "van7", "-P", "s3cret",
                                                                    "-t", "locus/van7/status", "-C", "1", "-W", "5"], directory: dir)
        #expect(offline.stdout.contains("\"online\":false"), "\(offline.stdout)")
    }

    /// A CA, and a server certificate for 127.0.0.1 signed by it, made with openssl.
    static func makeCertificates(_ dir: String, name: String) async throws {
        func openssl(_ args: [String]) async throws {
            let r = try await runToEnd("/usr/bin/openssl", args, directory: dir)
            #expect(r.status == 0, "openssl \(args.joined(separator: " ")): \(r.stderr)")
        }
        try await openssl(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(dir)/\(name)-ca.key", "-out", "\(dir)/\(name)-ca.pem",
                           "-days", "2", "-subj", "/CN=locus test CA \(name)"])
        try await openssl(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", "\(dir)/\(name)-server.key", "-out", "\(dir)/\(name)-server.csr",
                           "-subj", "/CN=127.0.0.1"])
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\n".write(toFile: "\(dir)/san.ext", atomically: true, encoding: .utf8)
        try await openssl(["x509", "-req", "-in", "\(dir)/\(name)-server.csr", "-CA", "\(dir)/\(name)-ca.pem", "-CAkey", "\(dir)/\(name)-ca.key",
                           "-CAcreateserial", "-out", "\(dir)/\(name)-server.pem", "-days", "2", "-extfile", "\(dir)/san.ext"])
    }

    @Test func tlsWithASelfMadeCADeliversAndAnotherCAIsRefused() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try await Self.makeCertificates(dir, name: "real")
        try await Self.makeCertificates(dir, name: "other")
        let broker = try MQTTBroker(directory: dir + "/broker", extra: [
            "cafile \(dir)/real-ca.pem", "certfile \(dir)/real-server.pem", "keyfile \(dir)/real-server.key"])
        try await broker.start()
        let ready = dir + "/ready"
        let collector = try ChildProcess(E2E.python, [E2E.script("mqtt_collect.py"), "--port", "\(broker.port)", "--topic", "locus/#",
                                                      "--out", dir + "/got.jsonl", "--ready-file", ready, "--cafile", "\(dir)/real-ca.pem",
                                                      "--max-wait", "60"], directory: dir)
        defer { collector.kill9() }
        #expect(await waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: ready) }, "\(collector.stderr)")
        try Self.config(dir, sinks: """
          - {type: mqtt, id: tls, port: \(broker.port), device: van7, tls_ca_file: real-ca.pem, protocol: "5"}
          - {type: mqtt, id: wrongca, port: \(broker.port), device: van8, tls_ca_file: other-ca.pem, reconnect_max: 0.5}
        """).write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 30) { locus.stderr.contains("plugin=walk reason=finished") }, "\(locus.stderr)")
        #expect(await waitUntil(timeout: 10) {
            CollectedMQTTMessage.read(dir + "/got.jsonl").filter { $0.topic.hasPrefix("locus/van7/location/update/") }.count >= 200
        })
        let wrong = try await Self.pluginCounters(dir, "wrongca")
        #expect((wrong["connect_failures"] ?? 0) >= 2 && wrong["connects"] == 0, "\(wrong)")
        #expect(CollectedMQTTMessage.read(dir + "/got.jsonl").allSatisfy { !$0.topic.hasPrefix("locus/van8/") })
        #expect(locus.stderr.contains("plugin=wrongca reason="), "\(locus.stderr.suffix(2000))")
    }

    @Test func messagesOverTheBrokersLimitAreSkippedAndCounted() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // MQTT 5: the broker announces its maximum packet size; location.status messages (with
        // their longer payload) exceed it, location updates fit.
        let broker = try MQTTBroker(directory: dir + "/broker", extra: ["max_packet_size 300"])
        try await broker.start()
        try Self.config(dir, sinks: """
          - {type: mqtt, id: up, port: \(broker.port), device: van7, protocol: "5", topics: ["location."]}
          - {type: mqtt, id: small, port: \(broker.port), device: van9, max_payload_bytes: 100, topics: ["location."]}
        """).write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 30) { locus.stderr.contains("plugin=walk reason=finished") }, "\(locus.stderr)")
        try await Task.sleep(nanoseconds: 1_500_000_000)
        let up = try await Self.pluginCounters(dir, "up")
        let small = try await Self.pluginCounters(dir, "small")
        #expect((up["dropped_too_large"] ?? 0) > 0 && (up["acknowledged"] ?? 0) > 0 && up["connects"] == 1 && up["disconnects"] == 0, "\(up)")
        #expect((small["dropped_too_large"] ?? 0) > 200 && small["published"] == 0, "\(small)")
        // The drops are among the daemon's drop counters, by place and reason.
        #expect(await waitUntil(timeout: 15) { locus.stderr.contains("up.too_large=") }, "\(locus.stderr.suffix(2000))")
    }
}
