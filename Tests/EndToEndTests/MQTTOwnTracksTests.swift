import Foundation
import LocusStore
import Testing

/// Issue 16, item 2: the `mqtt` sink's `format: owntracks` against a real Mosquitto, each
/// message checked against OwnTracks' own JSON Schema and the rules its consumers rely on.
@Suite(.serialized) struct MQTTOwnTracksTests {
    @Test func locationsAndTransitionsAreValidOwnTracksMessages() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try MQTTBroker(directory: dir + "/broker")
        try await broker.start()
        let ready = dir + "/ready"
        let collector = try ChildProcess(E2E.python, [E2E.script("mqtt_collect.py"), "--port", "\(broker.port)", "--topic", "owntracks/#",
                                                      "--out", dir + "/got.jsonl", "--ready-file", ready, "--max-wait", "60"], directory: dir)
        defer { collector.kill9() }
        #expect(await waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: ready) }, "\(collector.stderr)")
        try """
        hub:
          state_directory: \(dir)/state
        sources:
          - {type: replay, id: walk, file: \(E2E.repoRoot)/data/recordings/cerknica-walk.jsonl, speed: 600}
        services:
          - {type: standard, id: here, distance_filter: 0}
          - type: region
            id: fences
            persist: false
            publish_conditions: true
            regions:
              - {id: car-park, center: {lat: 45.7702, lon: 14.3564}, radius: 150, properties: {name: "Lakeside car park"}}
              - {id: lake-path, center: {lat: 45.7725, lon: 14.3577}, radius: 60}
              - {id: far-field, geometry: {type: Polygon, coordinates: [[[14.30, 45.70], [14.31, 45.70], [14.31, 45.71], [14.30, 45.70]]]}}
        sinks:
          - {type: mqtt, id: ot, port: \(broker.port), device: phone1, format: owntracks, owntracks_topic: "owntracks/ana/{device}"}
        """.write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 30) { locus.stderr.contains("plugin=walk reason=finished") }, "\(locus.stderr)")
        // Counted once the journal has settled: the last fixes are still in the services when the source finishes.
        let counts = await settled { () -> [Int] in
            var updates = 0, transitions = 0, definitions = 0
            _ = JournalReader(directory: dir + "/state/journal").read(from: .oldest) { e in
                let topic = String(decoding: e.topic, as: UTF8.self)
                if topic.hasPrefix("location.update.") { updates += 1 }
                if topic.hasPrefix("region.enter.") || topic.hasPrefix("region.exit.") { transitions += 1 }
                if topic.hasPrefix("region.condition.") { definitions += 1 }
                return true
            }
            return [updates, transitions, definitions]
        }
        let (updates, transitions, definitions) = (counts[0], counts[1], counts[2])
        // The polygon has no OwnTracks form: two of the three definitions become waypoints.
        #expect(definitions == 3)
        #expect(await waitUntil(timeout: 15) { CollectedMQTTMessage.read(dir + "/got.jsonl").count >= updates + transitions + 2 })
        let check = try await runToEnd(E2E.python, [E2E.script("validate_owntracks.py"), dir + "/got.jsonl",
                                                    E2E.fixture("owntracks/message.schema.json")], directory: dir)
        #expect(check.status == 0, "\(check.stdout) \(check.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any] ?? [:]
        #expect(summary["location"] as? Int == updates && updates > 200, "\(summary) updates \(updates)")
        #expect(summary["transition"] as? Int == transitions && transitions >= 2, "\(summary) transitions \(transitions)")
        #expect(summary["waypoint"] as? Int == 2, "\(summary)")
        let got = CollectedMQTTMessage.read(dir + "/got.jsonl")
        #expect(got.contains { $0.topic == "owntracks/ana/phone1/event" && $0.payload.contains("\"desc\":\"Lakeside car park\"") })
        #expect(got.contains { $0.topic == "owntracks/ana/phone1/event" && $0.payload.contains("\"desc\":\"lake-path\"") })
        // A consumer matches a transition to its waypoint by wtst = the waypoint's tst.
        let waypoint = try #require(got.first { $0.topic == "owntracks/ana/phone1/waypoint" && $0.payload.contains("\"rid\":\"car-park\"") })
        let enter = try #require(got.first { $0.topic == "owntracks/ana/phone1/event" && $0.payload.contains("\"rid\":\"car-park\"") })
        let wtst = try #require((try JSONSerialization.jsonObject(with: Data(enter.payload.utf8)) as? [String: Any])?["wtst"] as? Int)
        let tst = try #require((try JSONSerialization.jsonObject(with: Data(waypoint.payload.utf8)) as? [String: Any])?["tst"] as? Int)
        #expect(wtst == tst)
        #expect(waypoint.payload.contains("\"desc\":\"Lakeside car park\"") && waypoint.payload.contains("\"rad\":150"))
    }
}
