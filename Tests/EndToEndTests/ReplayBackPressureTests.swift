import Foundation
import Testing

/// Issue 14, item 2: a `replay` source at `speed: max` never outruns the services. `locus run`
/// gives, per producer, byte for byte the lines `locus replay` gives for the same file and
/// config, with subscription buffers far smaller than the file (before: the services' buffers
/// overflowed and most of the output was missing, dropped as slow_consumer).
@Suite(.serialized) struct ReplayBackPressureTests {
    static let epochs = 20_000

    @Test func runAtMaxSpeedGivesWhatReplayGives() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let nmea = dir + "/laps.nmea"
        let make = try await runToEnd(E2E.python, [E2E.script("make_nmea.py"), "\(Self.epochs)", nmea], directory: dir)
        #expect(make.status == 0, "\(make.stderr)")
        let config = dir + "/config.yaml"
        try """
        hub:
          subscription_buffer: 256
          state_directory: \(dir)/state
        sources:
          - type: replay
            id: gps
            file: \(nmea)
            source: gps0
            speed: max
        services:
          - type: standard
            id: loc
            distance_filter: 0
          - type: visits
            id: stays
          - type: region
            id: fences
            persist: false
            regions:
              - {id: corner-ne, center: {lat: 46.018, lon: 14.526}, radius: 150}
              - {id: south, center: {lat: 46.0, lon: 14.513}, radius: 200}
              - {id: west, geometry: {type: Polygon, coordinates: [[[14.498, 46.005], [14.502, 46.005], [14.502, 46.012], [14.498, 46.012], [14.498, 46.005]]]}}
        sinks:
          - type: file
            id: out
            path: \(dir)/out.jsonl
            max_bytes: 0
            topics: ["location.", "visit.", "region."]
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir]

        let replay = try await runToEnd(E2E.binary, ["replay", nmea, "--config", config], directory: dir, environment: env, timeout: 120)
        #expect(replay.status == 0, "\(replay.stderr)")
        let expected = Self.linesByProducer(replay.stdout)
        #expect(expected["loc"]?.count == Self.epochs)
        #expect((expected["fences"]?.count ?? 0) > 50 && (expected["stays"]?.count ?? 0) > 10, "the track must cross fences and stop")

        let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: env)
        defer { locus.kill9() }
        let total = expected.values.reduce(0) { $0 + $1.count }
        // Done when the replay has finished and the file stopped growing (or holds everything).
        var last = -1
        _ = await waitUntil(timeout: 120) {
            let n = ((try? String(contentsOfFile: dir + "/out.jsonl", encoding: .utf8)) ?? "").split(separator: "\n").count
            defer { last = n }
            return n == total || (n == last && n > 0 && locus.stderr.contains("recording finished"))
        }
        let status = await ExecSupervisionTests.pluginStates(dir)
        #expect(await locus.terminate(timeout: 10).status == 0, "\(locus.stderr)")
        let got = Self.linesByProducer((try? String(contentsOfFile: dir + "/out.jsonl", encoding: .utf8)) ?? "")
        for producer in expected.keys.sorted() {
            let e = expected[producer] ?? [], g = got[producer] ?? []
            #expect(g.count == e.count, "\(producer): \(g.count) lines, locus replay gives \(e.count)")
            if let i = (0..<min(e.count, g.count)).first(where: { e[$0] != g[$0] }) {
                Issue.record("\(producer) line \(i + 1) differs:\n  run:    \(g[i])\n  replay: \(e[i])")
            }
        }
        // Nothing was dropped anywhere on the way.
        for plugin in status {
            let dropped = (plugin["received"] as? [String: Any])?["dropped"] as? [String: Any] ?? [:]
            #expect(dropped.values.allSatisfy { ($0 as? Int) == 0 }, "\(plugin["plugin"] ?? "?"): \(dropped)")
        }
    }

    /// The lines of each producer, in order.
    static func linesByProducer(_ text: String) -> [String: [String]] {
        var out: [String: [String]] = [:]
        for line in text.split(separator: "\n") {
            out[RecordedMessage.read(line: String(line)).producer, default: []].append(String(line))
        }
        return out
    }
}
