import Foundation
import LocusStore
import Testing

/// Issue 18: the `web` sink against `locus run`, with real HTTP clients in Python (urllib for
/// Server-Sent Events, python3-websockets for the WebSocket), as browsers and scripts use it.
@Suite(.serialized) struct WebGatewayTests {
    struct Received: Equatable, CustomStringConvertible {
        var topic: String
        var producer: String
        var seq: Int
        var description: String { "\(topic)#\(producer)/\(seq)" }
    }

    static let topics = ["location.", "region.", "visit."]

    static func config(_ dir: String, port: Int, replay: String = "speed: 600, start_delay: 4", web: String = "") -> String {
        """
        hub:
          state_directory: \(dir)/state
        sources:
          - {type: replay, id: walk, file: \(E2E.repoRoot)/data/recordings/cerknica-walk.jsonl, \(replay)}
        services:
          - {type: standard, id: here, distance_filter: 0}
          - {type: visits, id: visits}
          - type: region
            id: fences
            persist: false
            publish_conditions: true
            regions:
              - {id: car-park, center: {lat: 45.7702, lon: 14.3564}, radius: 150, properties: {name: "Lakeside car park"}}
        sinks:
          - {type: web, id: web, listen: "127.0.0.1:\(port)"\(web)}
        """
    }

    static func start(_ dir: String, _ config: String) async throws -> ChildProcess {
        try config.write(toFile: dir + "/config.yaml", atomically: true, encoding: .utf8)
        let locus = try ChildProcess(E2E.binary, ["run", dir + "/config.yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir])
        #expect(await waitUntil(timeout: 20) { locus.stderr.contains("serving the web gateway") }, "\(locus.stderr)")
        return locus
    }

    /// What the journal holds of `topics`, in order, with its indexes.
    static func journaled(_ dir: String, topics: [String] = WebGatewayTests.topics) -> [(index: UInt64, event: Received)] {
        var out: [(UInt64, Received)] = []
        _ = JournalReader(directory: dir + "/state/journal").read(from: .oldest) { e in
            let topic = String(decoding: e.topic, as: UTF8.self)
            guard topics.contains(where: { topic.hasPrefix($0) }),
                  let o = try? JSONSerialization.jsonObject(with: Data(e.body)) as? [String: Any] else { return true }
            out.append((e.index, Received(topic: topic, producer: o["producer"] as? String ?? "", seq: o["seq"] as? Int ?? -1)))
            return true
        }
        return out
    }

    /// The lines a web_clients.py sse/ws run wrote.
    static func received(_ path: String) -> [(id: Int?, event: Received)] {
        let text = (try? String(contentsOfFile: path, encoding: .utf8)) ?? ""
        return text.split(separator: "\n").compactMap { line in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], o["gap"] == nil else { return nil }
            return (o["id"] as? Int, Received(topic: o["topic"] as? String ?? "", producer: o["producer"] as? String ?? "", seq: o["seq"] as? Int ?? -1))
        }
    }

    static func client(_ dir: String, _ args: [String]) throws -> ChildProcess {
        try ChildProcess(E2E.python, [E2E.script("web_clients.py")] + args, directory: dir)
    }

    static func get(_ port: Int, _ path: String, headers: [String] = [], validate: Bool = false,
                    directory: String) async throws -> (status: Int, type: String, body: String, problems: [String]) {
        let r = try await runToEnd(E2E.python, [E2E.script("web_clients.py"), "get", "--port", "\(port)", "--path", path]
                                   + headers.flatMap { ["--header", $0] } + (validate ? ["--schemas", E2E.repoRoot + "/schemas"] : []),
                                   directory: directory, timeout: 20)
        let o = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any] ?? [:]
        return (o["status"] as? Int ?? 0, o["type"] as? String ?? "", o["body"] as? String ?? "", o["problems"] as? [String] ?? [])
    }

    @Test func sseAndWebSocketGetEveryEventOfAReplayInOrderAndResumeWithoutAGap() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try MetricsTests.freePort()
        let locus = try await Self.start(dir, Self.config(dir, port: port))
        defer { locus.kill9() }
        let sse = try Self.client(dir, ["sse", "--port", "\(port)", "--topics", Self.topics.joined(separator: ","),
                                        "--out", dir + "/sse.jsonl", "--ready-file", dir + "/sse.ready", "--max-wait", "60",
                                        "--schemas", E2E.repoRoot + "/schemas"])
        let ws = try Self.client(dir, ["ws", "--port", "\(port)", "--topics", Self.topics.joined(separator: ","),
                                       "--out", dir + "/ws.jsonl", "--ready-file", dir + "/ws.ready", "--max-wait", "20"])
        defer { sse.kill9(); ws.kill9() }
        #expect(await waitUntil(timeout: 10) {
            FileManager.default.fileExists(atPath: dir + "/sse.ready") && FileManager.default.fileExists(atPath: dir + "/ws.ready")
        }, "\(sse.stderr) \(ws.stderr)")
        #expect(await waitUntil(timeout: 60) { locus.stderr.contains("plugin=walk reason=finished") }, "\(locus.stderr)")
        // Read once the journal has settled: the last fixes are still in the services when the source finishes.
        _ = await settled { Self.journaled(dir).map(\.index) }
        let expected = Self.journaled(dir)
        #expect(expected.count > 150, "the walk gives \(expected.count) events")
        #expect(await waitUntil(timeout: 20) {
            Self.received(dir + "/sse.jsonl").count >= expected.count && Self.received(dir + "/ws.jsonl").count >= expected.count
        })
        // Every journaled event, in journal order, each with its journal index as SSE id.
        let overSSE = Self.received(dir + "/sse.jsonl")
        #expect(overSSE.map(\.event) == expected.map(\.event))
        #expect(overSSE.map { $0.id.map(UInt64.init) } == expected.map { Optional($0.index) })
        #expect(Self.received(dir + "/ws.jsonl").map(\.event) == expected.map(\.event))
        // Every event matched schemas/protocol/web.event.schema.json (the client exits 1 if not).
        sse.kill9()
        #expect(!sse.stderr.contains("invalid event"), "\(sse.stderr)")

        // A client that got the first 10 resumes after the 10th: the rest, nothing twice.
        let resumed = try await runToEnd(E2E.python, [E2E.script("web_clients.py"), "sse", "--port", "\(port)",
                                                      "--topics", Self.topics.joined(separator: ","), "--out", dir + "/resumed.jsonl",
                                                      "--last-event-id", "\(expected[9].index)", "--count", "\(expected.count - 10)",
                                                      "--max-wait", "15"], directory: dir, timeout: 30)
        #expect(resumed.status == 0, "\(resumed.stderr)")
        #expect(Self.received(dir + "/resumed.jsonl").map(\.event) == expected.dropFirst(10).map(\.event))
        // A page opened late asks for the history instead: the same events.
        let late = try await runToEnd(E2E.python, [E2E.script("web_clients.py"), "sse", "--port", "\(port)", "--history",
                                                   "--topics", Self.topics.joined(separator: ","), "--out", dir + "/late.jsonl",
                                                   "--count", "\(expected.count)", "--max-wait", "15"], directory: dir, timeout: 30)
        #expect(late.status == 0, "\(late.stderr)")
        #expect(Self.received(dir + "/late.jsonl").map(\.event) == expected.map(\.event))

        // /state and /regions.geojson: the fence's definition and its state after the walk.
        let state = try await Self.get(port, "/state", validate: true, directory: dir)
        #expect(state.problems.isEmpty, "\(state.problems)")
        let o = try JSONSerialization.jsonObject(with: Data(state.body.utf8)) as? [String: Any] ?? [:]
        let regions = o["regions"] as? [[String: Any]] ?? []
        #expect(state.status == 200 && regions.count == 1 && regions.first?["region"] as? String == "car-park", "\(state.body)")
        #expect(regions.first?["state"] as? String == "unsatisfied", "the walk ends outside the car park: \(state.body)")
        #expect((regions.first?["definition"] as? [String: Any])?["radius"] as? Double == 150)
        #expect((o["locations"] as? [[String: Any]])?.first?["source"] as? String == "gps0")
        #expect((o["visits"] as? [Any])?.isEmpty == false)
        let geo = try await Self.get(port, "/regions.geojson", directory: dir)
        let features = (try JSONSerialization.jsonObject(with: Data(geo.body.utf8)) as? [String: Any])?["features"] as? [[String: Any]] ?? []
        #expect(geo.type == "application/geo+json" && features.count == 1, "\(geo.body)")
        #expect(((features.first?["geometry"] as? [String: Any])?["type"] as? String) == "Point")
        #expect(await locus.terminate().status == 0)
    }

    @Test func aTokenIsRequiredWhenSetAndBadRequestsAreRefusedAndCounted() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try MetricsTests.freePort()
        let token = "s3cret-token-for-the-test"
        try (token + "\n").write(toFile: dir + "/token", atomically: true, encoding: .utf8)
        let locus = try await Self.start(dir, Self.config(dir, port: port, web: ", token_file: \(dir)/token"))
        defer { locus.kill9() }
        #expect(try await Self.get(port, "/state", directory: dir).status == 401)
        #expect(try await Self.get(port, "/", directory: dir).status == 401)
        #expect(try await Self.get(port, "/state", headers: ["Authorization: Bearer wrong-token-wrong-token"], directory: dir).status == 401)
        #expect(try await Self.get(port, "/state", headers: ["Authorization: Bearer \(token)"], directory: dir).status == 200)
        let page = try await Self.get(port, "/?token=\(token)", directory: dir)
        #expect(page.status == 200 && page.type.hasPrefix("text/html") && page.body.contains("<svg"), "\(page.body.prefix(200))")
        let badTopic = try await Self.get(port, "/events?token=\(token)&topics=Region..", directory: dir)
        #expect(badTopic.status == 400 && badTopic.body.contains("not a topic prefix"), "\(badTopic)")
        let badID = try await Self.get(port, "/events?token=\(token)&last_event_id=yesterday", directory: dir)
        #expect(badID.status == 400, "\(badID)")
        // The daemon's metrics, read by the reference Prometheus parser, behind the token.
        #expect(try await Self.get(port, "/metrics", directory: dir).status == 401)
        let metrics = try await Self.get(port, "/metrics?token=\(token)", directory: dir)
        #expect(metrics.status == 200 && metrics.type.hasPrefix("text/plain; version=0.0.4"), "\(metrics.type)")
        try metrics.body.write(toFile: dir + "/metrics.txt", atomically: true, encoding: .utf8)
        let parsed = try await runToEnd(E2E.python, ["-c", """
            import sys
            from prometheus_client.parser import text_string_to_metric_families
            names = [f.name for f in text_string_to_metric_families(open(sys.argv[1]).read())]
            print(len(names))
            """, dir + "/metrics.txt"], directory: dir)
        #expect(parsed.status == 0 && (Int(parsed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 5, "\(parsed.stdout)\(parsed.stderr)")
        let ws = try await Self.get(port, "/ws?token=\(token)", directory: dir)
        #expect(ws.status == 400 && ws.body.contains("WebSocket"), "\(ws)")
        let status = try await runToEnd(E2E.binary, ["ctl", "status", "--json"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": dir], timeout: 10)
        #expect(status.stdout.contains(#""unauthorized" : 4"#) || status.stdout.contains(#""unauthorized":4"#), "\(status.stdout)")
        #expect(await locus.terminate().status == 0)

        // Beyond loopback without a token: a config error, before anything starts.
        try Self.config(dir, port: port).replacingOccurrences(of: "127.0.0.1:\(port)", with: "0.0.0.0:\(port)")
            .write(toFile: dir + "/open.yaml", atomically: true, encoding: .utf8)
        let check = try await runToEnd(E2E.binary, ["check", dir + "/open.yaml"], directory: dir)
        #expect(check.status != 0 && check.stderr.contains("not loopback") && check.stderr.contains("token_file"), "\(check.stderr)")
    }

    /// A client that never reads (a 4 KB receive buffer) while events come at full speed falls
    /// client_buffer bytes behind and is cut off: its connection closed, counted with the
    /// events it was waiting for; other clients and the daemon's memory are unaffected.
    @Test func aClientThatNeverReadsIsBoundedAndCounted() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try MetricsTests.freePort()
        let locus = try await Self.start(dir, Self.config(dir, port: port, replay: "speed: max, loop: true, start_delay: 3",
                                                          web: ", client_queue: 100, history: 100"))
        defer { locus.kill9() }
        let stalled = try Self.client(dir, ["stall", "--port", "\(port)", "--hold", "30", "--ready-file", dir + "/stall.ready"])
        defer { stalled.kill9() }
        let reader = try Self.client(dir, ["sse", "--port", "\(port)", "--topics", "region.", "--out", dir + "/reader.jsonl", "--max-wait", "25"])
        defer { reader.kill9() }
        #expect(await waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: dir + "/stall.ready") })
        #expect(await waitUntil(timeout: 20) { Self.counter(dir, "clients_cut_off") >= 1 })
        let dropped = Self.counter(dir, "dropped_slow_client")
        #expect(dropped >= 1 && dropped <= 101, "dropped \(dropped): what was queued (client_queue 100) and the event that did not fit")
        // Memory stays bounded.
        let rss = Self.rssMB(locus.process.processIdentifier)
        #expect(rss > 0 && rss < 400, "RSS \(rss) MB")
        // The client that reads still gets the region events as they come.
        #expect(await waitUntil(timeout: 10) { Self.received(dir + "/reader.jsonl").count > 20 })
        #expect(await locus.terminate().status == 0)
    }

    static func counter(_ dir: String, _ name: String) -> Int {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: E2E.binary)
        p.arguments = ["ctl", "status", "--json"]
        p.environment = ProcessInfo.processInfo.environment.merging(["LOCUS_RUNTIME_DIR": dir]) { $1 }
        let pipe = Pipe()
        p.standardOutput = pipe
        p.standardError = FileHandle.nullDevice
        guard (try? p.run()) != nil else { return -1 }
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let text = String(decoding: data, as: UTF8.self)
        guard let r = text.range(of: "\"\(name)\"") else { return -1 }
        let digits = text[r.upperBound...].drop { !$0.isNumber }.prefix { $0.isNumber }
        return Int(digits) ?? -1
    }

    static func rssMB(_ pid: Int32) -> Int {
        guard let s = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
              let line = s.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return -1 }
        return (Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0) / 1024
    }

    /// 1,000 Server-Sent Event streams at once on loopback: every one gets every event.
    @Test func aThousandConcurrentStreamsEachGetEveryEvent() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try MetricsTests.freePort()
        let locus = try await Self.start(dir, Self.config(dir, port: port, replay: "speed: 600, start_delay: 8",
                                                          web: ", max_connections_per_address: 1100, max_streams_per_address: 1100"))
        defer { locus.kill9() }
        // The walk gives this many region and visit events (the golden replay says so too).
        let replay = try await runToEnd(E2E.binary, ["replay", E2E.repoRoot + "/data/recordings/cerknica-walk.jsonl", "--config", dir + "/config.yaml"],
                                        directory: dir)
        let expected = replay.stdout.split(separator: "\n").filter { $0.contains("\"topic\":\"region.") || $0.contains("\"topic\":\"visit.") }.count
        #expect(expected >= 8)
        let many = try await runToEnd(E2E.python, [E2E.script("web_clients.py"), "many", "--port", "\(port)", "--clients", "1000",
                                                   "--topics", "region.,visit.", "--count", "\(expected)", "--max-wait", "60"],
                                      directory: dir, timeout: 90)
        let summary = try JSONSerialization.jsonObject(with: Data(many.stdout.utf8)) as? [String: Any] ?? [:]
        #expect(summary["ok_status"] as? Int == 1000 && summary["complete"] as? Int == 1000, "\(summary) \(many.stderr)")
        print("web gateway, 1000 SSE streams: \(summary), locus RSS \(Self.rssMB(locus.process.processIdentifier)) MB")
        let stop = await locus.terminate(timeout: 10)
        #expect(stop.status == 0, "exit \(String(describing: stop.status)) after \(stop.seconds) s: \(locus.stderr.suffix(3000))")
    }

    /// `locus view`: a recording on the page without a daemon, the same events `locus replay` gives.
    @Test func locusViewServesAReplaysEvents() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let port = try MetricsTests.freePort()
        let walk = E2E.repoRoot + "/data/recordings/cerknica-walk.jsonl"
        // Fences without publish_conditions: locus view draws them anyway.
        try """
        services:
          - {type: standard, id: here, distance_filter: 25}
          - {type: visits, id: visits}
          - type: region
            id: fences
            regions:
              - {id: car-park, center: {lat: 45.7702, lon: 14.3564}, radius: 150}
              - id: village
                geometry: {type: Polygon, coordinates: [[[14.300, 45.787], [14.312, 45.787], [14.312, 45.795], [14.300, 45.787]]]}
        """.write(toFile: dir + "/view.yaml", atomically: true, encoding: .utf8)
        let view = try ChildProcess(E2E.binary, ["view", walk, "--config", dir + "/view.yaml", "--listen", "127.0.0.1:\(port)"], directory: dir)
        defer { view.kill9() }
        #expect(await waitUntil(timeout: 30) { view.stdout.contains("http://127.0.0.1:\(port)/") }, "\(view.stdout)\(view.stderr)")
        let replay = try await runToEnd(E2E.binary, ["replay", walk, "--config", dir + "/view.yaml", "--include-input"], directory: dir)
        let lines = replay.stdout.split(separator: "\n").filter { !$0.contains("\"topic\":\"clock.") }
        let got = try await runToEnd(E2E.python, [E2E.script("web_clients.py"), "sse", "--port", "\(port)", "--history",
                                                  "--out", dir + "/view.jsonl", "--count", "\(lines.count + 2)", "--max-wait", "15"],
                                     directory: dir, timeout: 30)
        #expect(got.status == 0, "\(got.stderr)")
        // The same events as locus replay, and the two definitions locus view asks for.
        let all = Self.received(dir + "/view.jsonl").map(\.event.topic)
        #expect(all.filter { $0.hasPrefix("region.condition.") }.sorted() == ["region.condition.car-park", "region.condition.village"])
        let topics = all.filter { !$0.hasPrefix("region.condition.") }
        #expect(topics == lines.compactMap { l in
            (try? JSONSerialization.jsonObject(with: Data(l.utf8)) as? [String: Any])?["topic"] as? String
        })
        // Both fences are on the page, and the replay's events are in /state.
        let state = try await Self.get(port, "/state", directory: dir)
        #expect(state.body.contains("\"region\":\"car-park\"") && state.body.contains("\"region\":\"village\"")
                && state.body.contains("\"Polygon\""), "\(state.body.prefix(300))")
        let bad = try await runToEnd(E2E.binary, ["view", walk, "--listen", "0.0.0.0:\(port)"], directory: dir)
        #expect(bad.status != 0 && bad.stderr.contains("not loopback"), "\(bad.stderr)")
    }
}
