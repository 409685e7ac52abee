import Foundation
import Testing

/// Issue 18: the map page in a real browser (Debian's headless Chromium, driven through the
/// DevTools Protocol by Scripts/browser_check.py) against the default config.yaml under
/// `locus run`: the fences, the walk's track and events are drawn, on a desktop and a phone
/// screen. The screenshots are kept in the test's directory (docs/images/map.png is one).
@Suite(.serialized) struct WebPageBrowserTests {
    @Test func theDemoPageDrawsFencesTheWalkAndEvents() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try MetricsTests.freePort()
        let env = ["LOCUS_RUNTIME_DIR": dir, "LOCUS_STATE_DIR": dir + "/state", "LOCUS_WEB_PORT": "\(port)",
                   "LOCUS_DEMO_PORT": "\(try MetricsTests.freePort())", "LOCUS_REPLAY_SPEED": "120"]
        let locus = try ChildProcess(E2E.binary, ["run", E2E.repoRoot + "/config.yaml"], directory: dir, environment: env)
        defer { locus.kill9() }
        #expect(await waitUntil(timeout: 20) { locus.stderr.contains("url=http://127.0.0.1:\(port)/") }, "\(locus.stderr)")
        // A few events first: the walk enters the car park within a minute of recorded time.
        #expect(await waitUntil(timeout: 30) { locus.stdout.contains("region.enter.car-park") }, "\(locus.stdout.suffix(2000))")
        let check = try await runToEnd(E2E.python, [E2E.script("browser_check.py"), "--url", "http://127.0.0.1:\(port)/",
                                                    "--screenshot", dir + "/map.png", "--phone-screenshot", dir + "/phone.png",
                                                    "--min-fences", "2", "--min-events", "3", "--wait", "60"],
                                       directory: dir, timeout: 120)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any] ?? [:]
        let fences = (summary["fences"] as? [[String: Any]] ?? []).compactMap { $0["region"] as? String }.sorted()
        #expect(fences == ["car-park", "dolenje-jezero"], "\(summary)")
        let states = Dictionary(uniqueKeysWithValues: (summary["fences"] as? [[String: Any]] ?? []).compactMap { f in
            (f["region"] as? String).map { ($0, f["state"] as? String ?? "") }
        })
        #expect(states["car-park"] != "unknown", "the walk has been in the car park: \(summary)")
        #expect(summary["tracks"] as? [String] == ["gps0"] && (summary["positions"] as? Int ?? 0) >= 1, "\(summary)")
        #expect((summary["eventTypes"] as? [String] ?? []).contains("region.enter"), "\(summary)")
        #expect(summary["status"] as? String == "live", "\(summary)")
        let phone = summary["phone"] as? [String: Any] ?? [:]
        #expect(phone["width"] as? Int == 390 && (phone["fences"] as? [Any])?.count == 2, "\(phone)")
        for shot in ["map.png", "phone.png"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: dir + "/" + shot)[.size] as? Int) ?? 0
            #expect(size > 10_000, "\(shot) is \(size) bytes")
        }
        #expect(await locus.terminate(timeout: 10).status == 0)
    }
}
