import Foundation
import Testing

/// Issue 16, item 2: the `mqtt` source against a real Mosquitto and a real MQTT publisher
/// (paho): OwnTracks' own examples, truncated JSON, wrong types, a flooding device.
@Suite(.serialized) struct MQTTSourceTests {
    @Test func phonesBecomeFixesAndMalformedMessagesAreCountedNotFatal() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try MQTTBroker(directory: dir + "/broker")
        try await broker.start()
        try """
        hub:
          state_directory: \(dir)/state
        sources:
          - {type: mqtt, id: phones, port: \(broker.port), subscribe: ["owntracks/#"], max_rate: 5, reconnect_max: 0.5}
        sinks:
          - {type: file, id: out, path: \(dir)/fixes.jsonl, topics: ["obs.fix."]}
        """.write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 20) { locus.stderr.contains("connected to the MQTT broker") }, "\(locus.stderr)")

        // The plan: every OwnTracks example on one phone's topic, then hostile messages, then a flood.
        let examples = E2E.fixture("owntracks/examples")
        let names = try FileManager.default.contentsOfDirectory(atPath: examples).sorted()
        // One topic per example: max_rate applies per device, and this is not a flood.
        var plan: [[String: Any]] = names.map { ["topic": "owntracks/ana/phone", "payload_file": examples + "/" + $0] }
        plan = plan.enumerated().map { k, step in var s = step; s["topic"] = "owntracks/ana/phone\(k % 50)"; return s }
        plan += [
            ["topic": "owntracks/bob/tab", "payload": #"{"_type":"location","lat":45.77,"lon":14.35,"tst":1692430980,"acc":12,"vel":36}"#],
            ["topic": "owntracks/bob/tab", "payload": #"{"_type":"location","lat":45.77,"#],
            ["topic": "owntracks/bob/tab", "payload": #"{"_type":"location","lat":"45.77","lon":14.35,"tst":1692430980}"#],
            ["topic": "owntracks/bob/tab", "payload": #"{"_type":"location","lat":95,"lon":14.35,"tst":1692430980}"#],
            ["topic": "owntracks/bob", "payload": #"{"_type":"location","lat":1,"lon":2,"tst":1692430980}"#],
            ["topic": "owntracks/eve/flood", "payload": #"{"_type":"location","lat":1,"lon":2,"tst":1692430981}"#, "count": 500],
        ]
        let planText = plan.map { String(decoding: try! JSONSerialization.data(withJSONObject: $0), as: UTF8.self) }.joined(separator: "\n")
        try (planText + "\n").write(toFile: dir + "/plan.jsonl", atomically: true, encoding: .utf8)
        let published = try await runToEnd(E2E.python, [E2E.script("mqtt_publish.py"), "--port", "\(broker.port)", dir + "/plan.jsonl"],
                                           directory: dir)
        #expect(published.status == 0, "\(published.stderr)")
        try await Task.sleep(nanoseconds: 1_500_000_000)

        let status = try await MQTTBrokerBehaviourTests.pluginCounters(dir, "phones")
        _ = await locus.terminate()
        let fixes = RecordedMessage.read(dir + "/fixes.jsonl")
        // Valid locations in OwnTracks' examples, read independently here with Foundation.
        var validExamples = 0
        for name in names where !["illegal", "invalid", "missing", "without", "kaputt"].contains(where: { name.contains($0) }) {
            let o = (try? JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: examples + "/" + name)))) as? [String: Any]
            if o?["_type"] as? String == "location", o?["lat"] is NSNumber, o?["lon"] is NSNumber, o?["tst"] is NSNumber { validExamples += 1 }
        }
        let ana = fixes.filter { $0.topic.hasPrefix("obs.fix.ana-phone") }
        #expect(ana.count == validExamples && validExamples >= 5, "\(ana.count) of \(validExamples)")
        let bob = fixes.filter { $0.topic == "obs.fix.bob-tab" }
        #expect(bob.count == 1)
        #expect(bob.first?.payload["speed"] as? Double == 10 && bob.first?.payload["h_accuracy"] as? Double == 12)
        #expect(fixes.first { $0.topic == "obs.fix.bob-tab" }.map { _ in
            (try? String(contentsOfFile: dir + "/fixes.jsonl", encoding: .utf8))?.contains(#""time":"2023-08-19T07:43:00.000Z""#) ?? false
        } == true, "the fix's time is the message's tst")
        let eve = fixes.filter { $0.topic == "obs.fix.eve-flood" }.count
        #expect(eve >= 5 && eve < 100, "a flood is cut to max_rate: \(eve)")
        #expect(status["messages"] == names.count + 505, "\(status)")
        #expect((status["dropped_not_json"] ?? 0) >= 1 && (status["dropped_wrong_type"] ?? 0) >= 1, "\(status)")
        #expect((status["dropped_out_of_range"] ?? 0) >= 1 && status["dropped_bad_device"] == 1, "\(status)")
        #expect(status["dropped_rate_limit"] == 500 - eve, "\(status)")
        #expect((status["ignored"] ?? 0) > 10, "\(status)")
        #expect(!locus.stderr.contains("plugin=phones reason=") || !locus.stderr.contains("state=failed"), "\(locus.stderr)")
    }

    /// Issue 30, item 3: a broker that goes away is logged with libmosquitto's real reason
    /// ("The connection was lost.", then "Connection refused" while it stays away), for the
    /// MQTT 5 source with a session (whose connect runs on a helper thread) as for the others;
    /// never errno's "Success".
    @Test func aBrokerThatGoesAwayIsLoggedWithTheRealReason() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try MQTTBroker(directory: dir + "/broker")
        try await broker.start()
        try """
        hub:
          state_directory: \(dir)/state
        sources:
          - {type: mqtt, id: phones, port: \(broker.port), subscribe: ["owntracks/+/+"], reconnect_max: 0.5}
          - {type: mqtt, id: phones5, port: \(broker.port), subscribe: ["owntracks/+/+"], protocol: "5", session_expiry: 60,
             client_id: locus-test-reason, reconnect_max: 0.5}
        sinks:
          - {type: mqtt, id: up, port: \(broker.port), device: van7, topics: ["obs.fix."], reconnect_max: 0.5}
          - {type: mqtt, id: up5, port: \(broker.port), device: van8, protocol: "5", topics: ["obs.fix."], reconnect_max: 0.5}
        """.write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 20) { locus.stderr.components(separatedBy: "connected to the MQTT broker").count == 5 }, "\(locus.stderr)")
        await broker.stop()
        let plugins = ["phones", "phones5", "up", "up5"]
        func reasons(_ id: String) -> [String] {
            locus.stderr.split(separator: "\n").filter { $0.contains("locus.status: plugin=\(id) reason=") }.map {
                String($0.split(separator: " reason=", maxSplits: 1)[1].split(separator: " state=")[0])
            }
        }
        #expect(await waitUntil(timeout: 20) { plugins.allSatisfy { reasons($0).contains { $0.contains("Connection refused") } } },
                "\(locus.stderr.suffix(4000))")
        for id in plugins {
            let said = reasons(id)
            #expect(said.first?.contains("The connection was lost.") == true, "\(id): \(said)")
            #expect(said.allSatisfy { $0.contains("The connection was lost.") || $0 == "Connection refused" }, "\(id): \(said)")
        }
        #expect(!locus.stderr.contains("reason=Success"), "\(locus.stderr.suffix(4000))")
        #expect(await locus.terminate().status == 0)
    }
}
