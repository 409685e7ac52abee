import Foundation
import Testing

/// Issue 15, item 3: an outside publisher cannot forge Locus's own topics or producers; an
/// ingest endpoint's `allow_topics` grants reserved prefixes to its publishers.
@Suite(.serialized) struct ForgeryTests {
    @Test func reservedTopicsAndProducersAreRefusedUnlessGranted() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/config.yaml"
        try """
        hub:
          ingest:
            - ipc://\(dir)/ingest.sock
            - {endpoint: "ipc://\(dir)/trusted.sock", allow_topics: ["region."]}
          external_topics: ["obs.fix.phone"]
        services:
          - type: region
            id: fences
            persist: false
            regions: [{id: lake, center: {lat: 45.75, lon: 14.36}, radius: 2000}]
        sinks:
          - {type: file, id: out, path: \(dir)/out.jsonl, topics: ["region.", "status.", "obs.fix."]}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir]
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: env)
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 20) { locus.stderr.contains("hub started") }, "\(locus.stderr)")

        let forged = try await runToEnd(E2E.python, [E2E.script("publish_forged.py"), "ipc://\(dir)/ingest.sock",
            "region.enter.lake:evil", "status.walk:locus", "status.evil:evil", "obs.fix.phone:fences", "obs.fix.phone:phone"], directory: dir)
        #expect(forged.status == 0, "\(forged.stderr)")
        let granted = try await runToEnd(E2E.python, [E2E.script("publish_forged.py"), "ipc://\(dir)/trusted.sock",
            "region.enter.lake:outside", "status.outside:outside"], directory: dir)
        #expect(granted.status == 0, "\(granted.stderr)")

        func lines() -> [[String: Any]] {
            ((try? String(contentsOfFile: dir + "/out.jsonl", encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
        }
        func producer(_ line: [String: Any]) -> String? { (line["envelope"] as? [String: Any])?["producer"] as? String }
        #expect(await waitUntil(timeout: 10) { lines().contains { producer($0) == "outside" } })
        let status = try await runToEnd(E2E.binary, ["ctl", "status", "--json"], directory: dir, environment: env, timeout: 10)
        let reply = try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any]
        let dropped = ((reply?["result"] as? [String: Any])?["hub"] as? [String: Any])?["dropped"] as? [String: Any]
        #expect(dropped?["reserved"] as? Int == 5, "\(status.stdout)")
        let seen = lines().compactMap { line -> String? in
            guard let topic = line["topic"] as? String, let p = producer(line), p != "locus" || !topic.hasPrefix("status.") || topic == "status.walk" else { return nil }
            return topic + ":" + p
        }
        // What got through: the real phone, and the trusted endpoint's region event.
        #expect(seen.sorted() == ["obs.fix.phone:phone", "region.enter.lake:outside"], "\(seen)")
        // Each refusal reason is logged (first of its kind), naming the topic or producer.
        #expect(locus.stderr.contains("reserved"), "\(locus.stderr)")
    }
}
