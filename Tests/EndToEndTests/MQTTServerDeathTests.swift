import Foundation
import Testing

/// Issue 16, item 4: several servers share a fleet through the broker by `partition`, each
/// geofencing its own devices (`per_device: true`), and one of them dies (`kill -9`). Its
/// devices' fixes wait at the broker (`session_expiry`), and when it is back it continues each
/// device from its stored state: the same region events as if it had not died, each once. The
/// other server's devices are not disturbed.
@Suite(.serialized) struct MQTTServerDeathTests {
    /// FNV-1a-32, as the `partition` option documents it.
    static func fnv1a32(_ text: String) -> UInt32 {
        var h: UInt32 = 2_166_136_261
        for b in text.utf8 { h = (h ^ UInt32(b)) &* 16_777_619 }
        return h
    }

    static let depot = (lat: 45.77, lon: 14.36)
    static let t0 = 1_760_000_000

    /// One OwnTracks location `north` metres north of the depot's centre at second `t`.
    static func location(_ t: Int, north: Double) -> String {
        let lat = depot.lat + north / 111_195
        return #"{"_type":"location","lat":\#(String(format: "%.7f", lat)),"lon":\#(depot.lon),"acc":5,"tst":\#(t0 + t),"tid":"xx"}"#
    }

    /// Track A is inside the 100 m depot for 30..<90 s, track B for 70..<150 s (else 400 m away).
    static func north(track: Character, _ t: Int) -> Double {
        let inside = track == "A" ? (30..<90).contains(t) : (70..<150).contains(t)
        return inside ? 20 : 400
    }

    func config(_ dir: String, server: Int, port: Int) -> String {
        """
        hub:
          state_directory: \(dir)/s\(server)/state
        sources:
          - {type: mqtt, id: phones, port: \(port), subscribe: ["owntracks/+/+"], partition: "\(server)/2",
             session_expiry: 3600, client_id: locus-test-server\(server), max_rate: 0, reconnect_max: 0.5}
        services:
          - type: region
            id: fences
            per_device: true
            regions: [{id: depot, center: {lat: \(Self.depot.lat), lon: \(Self.depot.lon)}, radius: 100}]
        sinks:
          - {type: mqtt, id: up, port: \(port), device: server\(server), protocol: "5", topics: ["region."], reconnect_max: 0.5}
        """
    }

    @Test func aKilledServerContinuesItsDevicesFromTheirStateAndTheOtherIsUndisturbed() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let broker = try MQTTBroker(directory: dir + "/broker")
        try await broker.start()
        // Two devices per server, one on each track: names chosen by the documented hash.
        var devices: [(name: String, server: Int, track: Character)] = []
        var k = 0
        while devices.count < 4 {
            let name = "v\(k)"
            let server = Int(Self.fnv1a32("fleet-" + name) % 2)
            let same = devices.filter { $0.server == server }
            if same.count < 2 { devices.append((name, server, same.isEmpty ? "A" : "B")) }
            k += 1
        }
        func start(_ server: Int) throws -> ChildProcess {
            let path = "\(dir)/s\(server).yaml"
            try config(dir, server: server, port: broker.port).write(toFile: path, atomically: true, encoding: .utf8)
            try FileManager.default.createDirectory(atPath: "\(dir)/s\(server)", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            return try ChildProcess(E2E.binary, ["run", path], directory: dir, environment: ["LOCUS_RUNTIME_DIR": "\(dir)/s\(server)"])
        }
        let ready = dir + "/ready"
        let collector = try ChildProcess(E2E.python, [E2E.script("mqtt_collect.py"), "--v5", "--port", "\(broker.port)",
                                                      "--topic", "locus/+/region/#", "--out", dir + "/events.jsonl",
                                                      "--ready-file", ready, "--max-wait", "240"], directory: dir)
        defer { collector.kill9() }
        #expect(await waitUntil(timeout: 10) { FileManager.default.fileExists(atPath: ready) })
        var s0 = try start(0)
        let s1 = try start(1)
        defer { s0.kill9(); s1.kill9() }
        for s in [s0, s1] {
            #expect(await waitUntil(timeout: 20) { s.stderr.components(separatedBy: "connected to the MQTT broker").count == 3 }, "\(s.stderr)")
        }

        func publish(_ seconds: Range<Int>) async throws {
            var plan = ""
            for t in seconds {
                for d in devices {
                    let step: [String: Any] = ["topic": "owntracks/fleet/\(d.name)", "payload": Self.location(t, north: Self.north(track: d.track, t))]
                    plan += String(decoding: try JSONSerialization.data(withJSONObject: step), as: UTF8.self) + "\n"
                }
            }
            let path = dir + "/plan-\(seconds.lowerBound).jsonl"
            try plan.write(toFile: path, atomically: true, encoding: .utf8)
            let r = try await runToEnd(E2E.python, [E2E.script("mqtt_publish.py"), "--port", "\(broker.port)", path], directory: dir, timeout: 60)
            #expect(r.status == 0, "\(r.stderr)")
        }
        /// Region events by device (deduplicated by server and journal index), as "kind@second".
        func events() -> [String: [String]] {
            var seen = Set<String>()
            var out: [String: [String]] = [:]
            for m in CollectedMQTTMessage.read(dir + "/events.jsonl") {
                let parts = m.topic.split(separator: "/").map(String.init)   // locus/<server>/region/<kind>/depot/<device>
                guard parts.count == 6, seen.insert("\(parts[1])#\(m.index ?? -1)").inserted,
                      let o = try? JSONSerialization.jsonObject(with: Data(m.payload.utf8)) as? [String: Any],
                      let time = o["time"] as? String, let body = o["payload"] as? [String: Any] else { continue }
                let second = Int(ISO8601DateFormatter().date(from: time.replacingOccurrences(of: ".000", with: ""))!.timeIntervalSince1970) - Self.t0
                let previous = body["previous_state"] as? String ?? "?"
                out[parts[5], default: []].append("\(parts[1]):\(parts[3])@\(second) from \(previous)")
            }
            return out
        }

        try await publish(0..<60)
        let firstEnters = devices.filter { $0.track == "A" }.map { "fleet-" + $0.name }
        #expect(await waitUntil(timeout: 20) { let e = events(); return firstEnters.allSatisfy { e[$0]?.count == 1 } }, "\(events())")
        try await Task.sleep(for: .seconds(1))
        s0.kill9()
        _ = await s0.wait(timeout: 10)
        // While server 0 is dead: its devices' fixes wait at the broker; server 1 goes on.
        try await publish(60..<120)
        let s1Devices = devices.filter { $0.server == 1 }.map { "fleet-" + $0.name }
        #expect(await waitUntil(timeout: 20) { let e = events(); return s1Devices.allSatisfy { (e[$0]?.count ?? 0) >= ($0 == s1Devices[0] ? 2 : 1) } },
                "\(events())")
        s0 = try start(0)
        try await publish(120..<180)
        // Every device: enter and exit once, at the times its fixes say, from its own server.
        var expected: [String: [String]] = [:]
        for d in devices {
            let server = "server\(d.server)"
            expected["fleet-" + d.name] = d.track == "A"
                ? ["\(server):enter@49 from unsatisfied", "\(server):exit@109 from satisfied"]
                : ["\(server):enter@89 from unsatisfied", "\(server):exit@169 from satisfied"]
        }
        #expect(await waitUntil(timeout: 30) { events() == expected }, "\(events())\n\(s0.stderr.suffix(3000))")
        // Server 0 really had the fixes of its devices from while it was dead (through its session).
        let status = try await runToEnd(E2E.binary, ["ctl", "status", "--json"], directory: dir,
                                        environment: ["LOCUS_RUNTIME_DIR": "\(dir)/s0"], timeout: 20)
        #expect(status.stdout.contains("\"other_partition\""), "\(status.stdout)")
    }
}
