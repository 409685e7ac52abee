import Foundation
import Testing

/// Fixes with non-finite or off-the-globe coordinates from an outside publisher never reach a
/// service: the hub refuses numbers beyond any double (not_json) and coordinates off the globe
/// (bad_payload: the schema check of outside payloads).
@Suite(.serialized) struct OutOfRangeFixTests {
    @Test func nonFiniteAndOutOfRangeFixesAreCountedAndNeverReachAService() async throws {
        let dir = E2E.temporaryDirectory()
        let config = dir + "/config.yaml"
        try """
        hub:
          external_topics: ["obs.fix.ext"]
        services:
          - type: standard
            id: here
            distance_filter: 0
        sinks:
          - type: file
            id: archive
            path: \(dir)/events.jsonl
            topics: ["location.update."]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir]
        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: env)
        defer { locus.kill9() }
        // The hub is bound before the plugins subscribe: publish once the service is running,
        // or the fixes reach no one (PUB/SUB) and the test would prove nothing.
        let running = await ExecSupervisionTests.waitForPlugin(dir, "here", timeout: 20) { $0["state"] as? String == "running" }
        #expect(running != nil, "\(locus.stderr)")
        let inject = try await runToEnd(E2E.python, [E2E.script("inject_out_of_range.py"), "ipc://\(dir)/ingest.sock", "ext"],
                                        directory: dir, timeout: 30)
        #expect(inject.status == 0, "\(inject.stdout)\(inject.stderr)")
        let updates = { RecordedMessage.read(dir + "/events.jsonl").filter { $0.type == "location.update" } }
        #expect(await waitUntil(timeout: 10) { updates().count == 2 }, "\(updates().map(\.payload)); \(locus.stderr)")
        // Before: the 1e999 fix gave a location.update without lat, which the file sink itself
        // then refused as bad_payload.
        for u in updates() {
            let lat = try #require(u.payload["lat"] as? Double, "\(u.payload)")
            #expect(abs(lat) <= 90)
        }

        let ctl = try await runToEnd(E2E.binary, ["ctl", "status", "--json"], directory: dir, environment: env, timeout: 10)
        #expect(ctl.status == 0, "\(ctl.stderr)")
        let reply = try JSONSerialization.jsonObject(with: Data(ctl.stdout.utf8)) as! [String: Any]
        let plugins = (reply["result"] as! [String: Any])["plugins"] as! [[String: Any]]
        let here = try #require(plugins.first { $0["plugin"] as? String == "here" })
        let received = try #require(here["received"] as? [String: Any], "\(here)")
        let dropped = try #require(received["dropped"] as? [String: Any])
        // ±1e999 is beyond any double, and the hub itself refuses it as not_json, in whatever
        // layout it comes (issue 29 item 5: the compact form used to pass the hub). Latitude 91
        // and longitude 181 break obs.fix's schema, which the hub checks an outside publisher's
        // payload against (issue 49 item 5): bad_payload, so the service never sees them.
        #expect(dropped["undecodable"] as? Int == 0, "\(received)")
        let hub = try #require((reply["result"] as! [String: Any])["hub"] as? [String: Any])
        #expect((hub["dropped"] as? [String: Any])?["not_json"] as? Int == 2, "\(hub)")
        #expect((hub["dropped"] as? [String: Any])?["bad_payload"] as? Int == 2, "\(hub)")
        // Nothing the service published was refused downstream (before: the sink's bad_payload).
        let archive = try #require(plugins.first { $0["plugin"] as? String == "archive" })
        let archiveDropped = try #require((archive["received"] as? [String: Any])?["dropped"] as? [String: Any], "\(archive)")
        #expect(archiveDropped["undecodable"] as? Int == 0, "\(archive)")
        #expect(await locus.terminate().status == 0)
    }
}
