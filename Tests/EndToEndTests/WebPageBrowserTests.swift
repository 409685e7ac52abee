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

    /// Issue 30 item 12: `locus view` of a recording whose track jumps: a step of 4 km in one
    /// second, five minutes of silence, 4 km back in 15 s (what the demo's looping replay does
    /// at each new pass) and fixes that come last with a time an hour earlier. The page draws
    /// five lines, none across a jump; the status says "recording" with the recording's span, not "live"; and tiles from
    /// a `tile_url` (a local tile server of one colour) are drawn, under the fence.
    @Test func aRecordingsTrackBreaksAtJumpsAndTilesAreDrawnUnderTheFences() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let t0 = 1_622_541_600.0  // 2021-06-01T10:00:00Z
        var lines: [String] = []
        func fix(_ dt: Double, _ lat: Double, _ lon: Double) {
            let time = EventTimeText.iso(t0 + dt)
            lines.append(#"{"topic":"obs.fix.gps0","envelope":{"type":"obs.fix","version":1,"producer":"gps0","seq":\#(lines.count + 1),"time":"\#(time)","payload":{"source":"gps0","mode":"2d","lat":\#(lat),"lon":\#(lon),"h_accuracy":5,"speed":1.4}}}"#)
        }
        for i in 0..<5 { fix(Double(i), 45.77, 14.35 + 0.0001 * Double(i)) }          // a: 5 points, 8 m a second
        for i in 0..<5 { fix(Double(5 + i), 45.806, 14.35 + 0.0001 * Double(i)) }     // b: 4 km on in 1 s
        for i in 0..<4 { fix(Double(300 + i), 45.8063, 14.3505 + 0.0001 * Double(i)) } // c: after 5 minutes
        // e: back to a's start 15 s on, as the demo's replay starts its next pass (4.6 km in 15 s
        // at a reported 1 m/s there); not faster than sound, but far faster than the 1.4 m/s said.
        for i in 0..<4 { fix(Double(318 + i), 45.77, 14.35 + 0.0001 * Double(i)) }
        for i in 0..<4 { fix(Double(-3600 + i), 45.79, 14.35 + 0.0001 * Double(i)) }  // d: last, an hour back
        try (lines.joined(separator: "\n") + "\n").write(toFile: dir + "/jumps.jsonl", atomically: true, encoding: .utf8)
        // One fence, away from the track, so its centre shows what lies under it.
        try """
        services:
          - type: region
            id: fences
            regions:
              - {id: pond, center: {lat: 45.79, lon: 14.40}, radius: 300}
        """.write(toFile: dir + "/view.yaml", atomically: true, encoding: .utf8)

        let tiles = try ChildProcess(E2E.python, [E2E.script("tile_server.py"), "--color", "ff00ff"], directory: dir)
        defer { tiles.kill9() }
        #expect(await waitUntil(timeout: 10) { tiles.stdout.hasPrefix("port ") }, "\(tiles.stderr)")
        let tilePort = tiles.stdout.split(separator: "\n").first.map { String($0.dropFirst(5)) } ?? ""
        let port = try MetricsTests.freePort()
        let view = try ChildProcess(E2E.binary, ["view", dir + "/jumps.jsonl", "--config", dir + "/view.yaml",
                                                 "--listen", "127.0.0.1:\(port)",
                                                 "--tile-url", "http://127.0.0.1:\(tilePort)/{z}/{x}/{y}.png"], directory: dir)
        defer { view.kill9() }
        #expect(await waitUntil(timeout: 30) { view.stdout.contains("http://127.0.0.1:\(port)/") }, "\(view.stdout)\(view.stderr)")
        let check = try await runToEnd(E2E.python, [E2E.script("browser_check.py"), "--url", "http://127.0.0.1:\(port)/",
                                                    "--screenshot", dir + "/jumps.png", "--pixels",
                                                    "--min-fences", "1", "--min-events", "3", "--wait", "60"],
                                       directory: dir, timeout: 120)
        #expect(check.status == 0, "\(check.stdout)\(check.stderr)")
        let summary = try JSONSerialization.jsonObject(with: Data(check.stdout.utf8)) as? [String: Any] ?? [:]
        // In time order: d (an hour early), a, b (4 km on), c (5 minutes on), e (back): five lines.
        let segments = (summary["trackSegments"] as? [String: [Int]])?["gps0"]
        #expect(segments == [4, 5, 5, 4, 4], "points per drawn line: \(summary)")
        #expect(summary["status"] as? String == "recording 2021-06-01 09:00:00 – 10:05:21 UTC", "\(summary)")
        // Tiles were asked for, loaded (none hidden after an error) and drawn: the map's edge is
        // the tiles' colour, and the fence's centre is that colour seen through the fence's fill.
        let t = summary["tiles"] as? [String: Any] ?? [:]
        #expect((t["count"] as? Int ?? 0) >= 1 && t["hidden"] as? Int == 0, "\(t)")
        #expect(tiles.stdout.contains("tile /"), "no tile was requested: \(tiles.stdout)")
        let pixels = summary["pixels"] as? [String: Any] ?? [:]
        let edge = pixels["edge"] as? [Int] ?? []
        #expect(edge == [255, 0, 255], "the map's edge is not the tiles' colour: \(pixels)")
        let pond = (pixels["fences"] as? [String: [Int]])?["pond"] ?? []
        #expect(pond.count == 3 && pond != [255, 0, 255] && pond[0] > 180 && pond[1] < 60 && pond[2] > 180,
                "the fence's centre should be magenta under the fence's tint: \(pixels)")
    }
}

/// ISO 8601 with milliseconds, as envelopes carry it.
enum EventTimeText {
    static func iso(_ seconds: Double) -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: Date(timeIntervalSince1970: seconds))
    }
}
