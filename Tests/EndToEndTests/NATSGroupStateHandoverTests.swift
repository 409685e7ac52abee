import Foundation
import LocusFleet
import LocusNATS
import LocusTestKit
import Testing

/// Issue 33, item 3: a partition moves with its devices' service state. Three `locus run`
/// servers in a NATS group run a per-device `region` service (500 fences) for 1,000 devices and
/// send its events to the stream LOCUS_EVENTS with the `nats` sink. Mid-run one server is killed
/// (`kill -9`) and later a fourth joins (partitions move again, by release). Per device, the
/// transitions in LOCUS_EVENTS must equal those of one `locus replay` of all the fixes: none
/// missing (a new owner restored the state its services had at the checkpoint), none repeated
/// (what it derived again is the same event, stored once by its message id), in order.
@Suite(.serialized) struct NATSGroupStateHandoverTests {
    static let deviceCount = 1000
    static let fenceCount = 500
    static let rounds = 12
    let devices = (0..<deviceCount).map { "v\($0)" }

    /// Fence k: a 200 m circle on a grid of 25 columns, 0.01° apart.
    static func fence(_ k: Int) -> (lat: Double, lon: Double) { (52.0 + Double(k / 25) * 0.01, 13.0 + Double(k % 25) * 0.01) }

    /// Where device d is in round r: inside a fence in even rounds (a different one each time),
    /// far from every fence in odd ones, so each round is one transition per device.
    static func position(device d: Int, round r: Int) -> (lat: Double, lon: Double) {
        if r % 2 == 1 { return (54.0 + Double(d) * 1e-4, 13.0) }
        let f = fence((d * 7 + r * 13) % fenceCount)
        return (f.lat + 0.0003, f.lon - 0.0002)
    }

    static func time(round r: Int) -> Int { 1_700_000_000 + r * 60 }

    static var regionYAML: String {
        var y = """
            services:
              - type: region
                id: fences
                per_device: true
                min_distance: 0
                min_duration: 0
                regions:

            """
        for k in 0..<fenceCount {
            let f = fence(k)
            y += "          - {id: f\(k), center: {lat: \(f.lat), lon: \(f.lon)}, radius: 200}\n"
        }
        return y
    }

    func config(_ dir: String, server: Int, urls: [String], replicas: Int = 1, leaseTTL: Int = 1) -> String {
        let servers = urls.map { "\"\($0)\"" }.joined(separator: ", ")
        return """
        hub:
          state_directory: \(dir)/s\(server)/state
        sources:
          - {type: nats, id: fleet, servers: [\(servers)], subjects: ["locus.fixes.>"], filter: "locus.fixes.*.>",
             device_tokens: [3], group: handover, partitions: 16, lease_ttl: \(leaseTTL), member: server\(server), max_rate: 0,
             replicas: \(replicas)}
        sinks:
          - {type: nats, id: events, servers: [\(servers)], topics: ["region."], replicas: \(replicas)}
        \(Self.regionYAML)
        """
    }

    /// Publishes one round; a fix the stream did not acknowledge is sent again, as a phone whose
    /// publish was not confirmed would (a NATS node lost: its streams elect new leaders).
    func publish(_ c: NATSConnection, round r: Int, devices: [String]? = nil) async throws {
        for (i, d) in (devices ?? self.devices).enumerated() {
            let p = Self.position(device: i, round: r)
            let body = #"{"_type":"location","lat":\#(p.lat),"lon":\#(p.lon),"tst":\#(Self.time(round: r)),"acc":5}"#
            let subject = "locus.fixes.\(PartitionHash.partition(of: d, count: 16)).\(d)"
            var attempts = 0
            while true {
                do {
                    _ = try c.publish(subject, Array(body.utf8), messageId: "\(d)@\(r)")
                    break
                } catch {
                    attempts += 1
                    if attempts > 300 { throw error }
                    try await Task.sleep(for: .milliseconds(200))
                }
            }
        }
    }

    /// The same fixes as a Locus recording, round by round.
    func recording() -> String {
        var lines: [String] = []
        var seq = 0
        for r in 0..<Self.rounds {
            let iso = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(Self.time(round: r))))
            for (i, d) in devices.enumerated() {
                seq += 1
                let p = Self.position(device: i, round: r)
                lines.append(#"{"topic":"obs.fix.\#(d)","envelope":{"type":"obs.fix","version":1,"producer":"fleet","seq":\#(seq),"time":"\#(iso)","payload":{"source":"\#(d)","mode":"2d","lat":\#(p.lat),"lon":\#(p.lon),"h_accuracy":5}}}"#)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// "device kind region @time" of a region event envelope on `topic`; nil for other events.
    static func transition(topic: String, envelope: [String: Any]) -> (device: String, text: String)? {
        let parts = topic.split(separator: ".")
        guard parts.count == 4, parts[0] == "region", parts[1] == "enter" || parts[1] == "exit",
              let time = envelope["time"] as? String else { return nil }
        return (String(parts[3]), "\(parts[1]) \(parts[2]) @\(time)")
    }

    @Test func transitionsAcrossAKillAndAJoinEqualOneReplay() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }

        // What one server would say: `locus replay` of every fix.
        let expected = try await reference(dir, devices: Self.deviceCount)
        let expectedCount = expected.values.map(\.count).reduce(0, +)
        #expect(expectedCount >= Self.deviceCount * (Self.rounds - 1), "the reference has \(expectedCount) transitions")

        let nats = try NATSServer(directory: dir + "/nats")
        try nats.start()
        let writer = try NATSConnection(NATSConnectionSettings(servers: [nats.url], name: "devices"))
        try writer.ensureStream(JetStreamStreamSpec(name: "LOCUS_FIXES", subjects: ["locus.fixes.>"]))
        var servers: [ChildProcess?] = []
        defer { for s in servers { s?.kill9() } }
        func start(_ i: Int) throws -> ChildProcess {
            try FileManager.default.createDirectory(atPath: "\(dir)/s\(i)", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try config(dir, server: i, urls: [nats.url]).write(toFile: "\(dir)/s\(i).yaml", atomically: true, encoding: .utf8)
            return try ChildProcess(E2E.binary, ["run", "\(dir)/s\(i).yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": "\(dir)/s\(i)"])
        }
        for i in 0..<3 { servers.append(try start(i)) }
        func logs() -> String { servers.compactMap { $0?.stderr }.joined(separator: "\n----\n") }
        func tookPartitions() -> Int { NATSGroupLog.partitionsTaken(logs()) }
        #expect(await waitUntil(timeout: 60) { tookPartitions() >= 16 }, "\(logs().suffix(3000))")
        try await Task.sleep(for: .seconds(2))

        // Rounds a second apart; server 1 is killed mid-run (after round 4, before its next
        // checkpoint perhaps), server 3 joins after round 8.
        var killedAt: ContinuousClock.Instant?
        for r in 0..<Self.rounds {
            try await publish(writer, round: r)
            try await Task.sleep(for: .milliseconds(700))
            if r == 4 {
                servers[1]?.kill9()
                killedAt = .now
            }
            if r == 8 { servers.append(try start(3)) }
        }

        // Everything in LOCUS_EVENTS, in stream order.
        let reader = try NATSConnection(NATSConnectionSettings(servers: [nats.url], name: "checker"))
        func stored() throws -> [String: [String]] { try Self.stored(reader) }
        var got: [String: [String]] = [:]
        let complete = await waitUntil(timeout: 90) {
            got = (try? stored()) ?? [:]
            return got.values.map(\.count).reduce(0, +) >= expectedCount
        }
        // A moment more: anything repeated after the count was reached shows too.
        try await Task.sleep(for: .seconds(2))
        got = try stored()
        let gotCount = got.values.map(\.count).reduce(0, +)
        print("state handover: \(gotCount) transitions stored for \(expectedCount) expected; killed at \(String(describing: killedAt))")
        #expect(complete, "only \(gotCount) of \(expectedCount) transitions reached LOCUS_EVENTS")
        let differing = devices.filter { got[$0] ?? [] != expected[$0] ?? [] }
        #expect(differing.isEmpty, """
            \(differing.count) devices' transitions differ from the replay; first: \(differing.first ?? "")
            got      \(got[differing.first ?? ""] ?? [])
            expected \(expected[differing.first ?? ""] ?? [])
            """)
        // The handover really moved state: the survivors restored checkpointed device states
        // (their counters say so), and the joining server took partitions given back by release.
        let running = servers.compactMap { $0 }.filter { $0.process.isRunning }
        #expect(running.count == 3)
        #expect(NATSGroupLog.partitionsTaken(servers[3]?.stderr ?? "") > 0, "\(servers[3]?.stderr.suffix(2000) ?? "")")
        var restored = 0, checkpoints = 0, partitionsListed = 0, owned = 0
        for i in [0, 2, 3] {
            let status = try await runToEnd(E2E.binary, ["ctl", "status", "--json"], directory: dir,
                                            environment: ["LOCUS_RUNTIME_DIR": "\(dir)/s\(i)"], timeout: 10)
            let result = (try? JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [String: Any])?["result"] as? [String: Any]
            let plugins = result?["plugins"] as? [[String: Any]] ?? []
            let counters = plugins.first { $0["plugin"] as? String == "fleet" }?["counters"] as? [String: Any] ?? [:]
            restored += counters["states_restored"] as? Int ?? 0
            checkpoints += counters["checkpoints"] as? Int ?? 0
            owned += counters["partitions_owned"] as? Int ?? 0
            // `locus ctl status` lists each partition held with its epoch and lag.
            partitionsListed += counters.keys.filter { $0.hasPrefix("partition_") && $0.hasSuffix("_epoch") }.count
        }
        print("state handover: \(restored) device states restored, \(checkpoints) checkpoints on the servers left")
        #expect(restored > 0 && checkpoints > 0)
        #expect(owned == 16 && partitionsListed == 16, "owned \(owned), listed \(partitionsListed)")
    }

    /// Per device, the transitions one `locus replay` of `devices`' fixes gives.
    func reference(_ dir: String, devices count: Int) async throws -> [String: [String]] {
        let lines = recording().split(separator: "\n").filter { line in
            guard let r = line.range(of: #""topic":"obs.fix.v"#) else { return false }
            let digits = line[r.upperBound...].prefix { $0.isNumber }
            return Int(digits).map { $0 < count } ?? false
        }
        try (lines.joined(separator: "\n") + "\n").write(toFile: "\(dir)/fixes.jsonl", atomically: true, encoding: .utf8)
        try Self.regionYAML.write(toFile: "\(dir)/reference.yaml", atomically: true, encoding: .utf8)
        let run = try await runToEnd(E2E.binary, ["replay", "\(dir)/fixes.jsonl", "--config", "\(dir)/reference.yaml"],
                                     directory: dir, timeout: 120)
        #expect(run.status == 0, "\(run.stderr.suffix(2000))")
        var expected: [String: [String]] = [:]
        for line in run.stdout.split(separator: "\n") {
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let topic = o["topic"] as? String, let env = o["envelope"] as? [String: Any],
                  let t = Self.transition(topic: topic, envelope: env) else { continue }
            expected[t.device, default: []].append(t.text)
        }
        return expected
    }

    /// Per device, the transitions in LOCUS_EVENTS, in stream order.
    static func stored(_ reader: NATSConnection) throws -> [String: [String]] {
        let consumer = try JetStreamPullConsumer(connection: reader, stream: "LOCUS_EVENTS", filter: "locus.events.>", start: .all)
        var out: [String: [String]] = [:]
        while true {
            let batch = try consumer.fetch(batch: 1000, timeoutMs: 500)
            if batch.isEmpty { break }
            for m in batch {
                guard let env = try? JSONSerialization.jsonObject(with: Data(m.payload)) as? [String: Any],
                      let t = transition(topic: String(m.subject.dropFirst("locus.events.".count)), envelope: env) else { continue }
                out[t.device, default: []].append(t.text)
            }
        }
        return out
    }

    /// The issue's fourth test: a 3-node NATS cluster with R3 streams and bucket, two Locus
    /// servers; one NATS node is killed mid-run. Devices publish through JetStream and send a fix
    /// again until the stream acknowledges it (MQTT publishers get no such acknowledgement:
    /// examples/fleet/README.md). Per device the transitions in LOCUS_EVENTS equal one replay.
    @Test func transitionsAcrossALostNATSNodeEqualOneReplay() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let count = 300
        let fleet = Array(devices.prefix(count))
        let expected = try await reference(dir, devices: count)
        let expectedCount = expected.values.map(\.count).reduce(0, +)
        #expect(expectedCount >= count * (Self.rounds - 1))

        let nodes = try NATSServer.cluster(directory: dir + "/nats", size: 3)
        for n in nodes { try n.start() }
        defer { for n in nodes { n.kill9() } }
        let urls = nodes.map(\.url)
        let writer = try NATSConnection(NATSConnectionSettings(servers: [urls[0], urls[2]], name: "devices"))
        #expect(await waitUntil(timeout: 30) {
            (try? writer.ensureStream(JetStreamStreamSpec(name: "LOCUS_FIXES", subjects: ["locus.fixes.>"], replicas: 3))) != nil
        })
        var servers: [ChildProcess] = []
        defer { for s in servers { s.kill9() } }
        for i in 0..<2 {
            try FileManager.default.createDirectory(atPath: "\(dir)/s\(i)", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try config(dir, server: i, urls: urls, replicas: 3, leaseTTL: 3).write(toFile: "\(dir)/s\(i).yaml", atomically: true, encoding: .utf8)
            servers.append(try ChildProcess(E2E.binary, ["run", "\(dir)/s\(i).yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": "\(dir)/s\(i)"]))
        }
        func logs() -> String { servers.map(\.stderr).joined(separator: "\n----\n") }
        #expect(await waitUntil(timeout: 60) { NATSGroupLog.partitionsTaken(logs()) >= 16 }, "\(logs().suffix(3000))")
        try await Task.sleep(for: .seconds(2))
        for r in 0..<Self.rounds {
            try await publish(writer, round: r, devices: fleet)
            try await Task.sleep(for: .milliseconds(700))
            if r == 4 { nodes[1].kill9() }
        }
        let reader = try NATSConnection(NATSConnectionSettings(servers: [urls[0], urls[2]], name: "checker"))
        var got: [String: [String]] = [:]
        let complete = await waitUntil(timeout: 120) {
            got = (try? Self.stored(reader)) ?? [:]
            return got.values.map(\.count).reduce(0, +) >= expectedCount
        }
        try await Task.sleep(for: .seconds(3))
        // Read again, retried: nats-server 2.9 may place the reader's new consumer on the lost
        // node and never answer for it (examples/fleet/README.md); CI saw that time out once.
        var reread: [String: [String]]?
        _ = await waitUntil(timeout: 30) {
            reread = try? Self.stored(reader)
            return reread != nil
        }
        got = try #require(reread, "LOCUS_EVENTS could not be read after the node loss")
        let gotCount = got.values.map(\.count).reduce(0, +)
        print("NATS node lost: \(gotCount) transitions stored for \(expectedCount) expected")
        #expect(complete, "only \(gotCount) of \(expectedCount) transitions reached LOCUS_EVENTS")
        let differing = fleet.filter { got[$0] ?? [] != expected[$0] ?? [] }
        #expect(differing.isEmpty, """
            \(differing.count) devices' transitions differ from the replay; first: \(differing.first ?? "")
            got      \(got[differing.first ?? ""] ?? [])
            expected \(expected[differing.first ?? ""] ?? [])
            """)
    }
}
