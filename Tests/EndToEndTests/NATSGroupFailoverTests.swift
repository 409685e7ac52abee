import Foundation
import LocusFleet
import LocusNATS
import LocusTestKit
import Testing

/// Issue 33: `locus run` servers whose `nats` sources form one group, on a real nats-server.
/// One is killed (`kill -9`): the others take its partitions after its leases run out and read
/// them from the position it committed, so every device's fixes reach the servers' buses once.
/// One is paused (SIGSTOP) past its lease: the others take over, and once it wakes it publishes
/// nothing of what they took.
@Suite(.serialized) struct NATSGroupFailoverTests {
    let devices = (0..<100).map { "van\($0)" }

    func config(_ dir: String, server: Int, url: String) -> String {
        """
        hub:
          state_directory: \(dir)/s\(server)/state
        sources:
          - {type: nats, id: fleet, servers: ["\(url)"], subjects: ["locus.fixes.>"], filter: "locus.fixes.*.>",
             device_tokens: [3], group: failover, partitions: 16, lease_ttl: 1, member: server\(server), max_rate: 0}
        sinks:
          - {type: file, id: fixes, path: \(dir)/s\(server)/fixes.jsonl, topics: ["obs.fix."]}
        """
    }

    /// Publishes one fix per device; its latitude encodes the round.
    func publish(_ c: NATSConnection, round: Int) throws {
        for d in devices {
            let body = #"{"_type":"location","lat":\#(52.5 + Double(round) / 1000),"lon":13.4,"tst":\#(1_700_000_000 + round),"acc":5}"#
            _ = try c.publish("locus.fixes.\(PartitionHash.partition(of: d, count: 16)).\(d)", Array(body.utf8))
        }
    }

    /// Per server: "device@round" of every fix it wrote.
    func written(_ dir: String, server: Int) -> [String] {
        RecordedMessage.read("\(dir)/s\(server)/fixes.jsonl").compactMap { m in
            guard let lat = m.payload["lat"] as? Double else { return nil }
            return "\(m.topic.dropFirst("obs.fix.".count))@\(Int(((lat - 52.5) * 1000).rounded()))"
        }
    }

    @Test func aKilledServersPartitionsAreTakenOverAndAPausedOnePublishesNothingOnceItWakes() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let nats = try NATSServer(directory: dir + "/nats")
        try nats.start()
        let writer = try NATSConnection(NATSConnectionSettings(servers: [nats.url], name: "devices"))
        try writer.ensureStream(JetStreamStreamSpec(name: "LOCUS_FIXES", subjects: ["locus.fixes.>"]))
        var servers: [ChildProcess] = []
        defer { for s in servers { s.kill9() } }
        for i in 0..<3 {
            try FileManager.default.createDirectory(atPath: "\(dir)/s\(i)", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try config(dir, server: i, url: nats.url).write(toFile: "\(dir)/s\(i).yaml", atomically: true, encoding: .utf8)
            servers.append(try ChildProcess(E2E.binary, ["run", "\(dir)/s\(i).yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": "\(dir)/s\(i)"]))
        }
        func all() -> [String] { (0..<3).flatMap { written(dir, server: $0) } }
        func expectEachOnce(_ rounds: Range<Int>, _ what: String) {
            let seen = all()
            let wanted = rounds.flatMap { r in devices.map { "\($0)@\(r)" } }
            let counts = Dictionary(seen.map { ($0, 1) }, uniquingKeysWith: +)
            let missing = wanted.filter { counts[$0] == nil }
            let repeated = wanted.filter { (counts[$0] ?? 0) > 1 }
            #expect(missing.isEmpty && repeated.isEmpty, "\(what): missing \(missing.prefix(10)), repeated \(repeated.prefix(10))")
        }
        func tookPartitions() -> Int { servers.map { NATSGroupLog.partitionsTaken($0.stderr) }.reduce(0, +) }
        #expect(await waitUntil(timeout: 30) { tookPartitions() >= 16 }, "\(servers.map(\.stderr))")
        try await Task.sleep(for: .seconds(2))
        for round in 0..<3 { try publish(writer, round: round) }
        #expect(await waitUntil(timeout: 20) { all().count >= 300 })
        expectEachOnce(0..<3, "before the kill")

        // kill -9 one server once its positions are committed (every second).
        try await Task.sleep(for: .seconds(2))
        let killedHad = Set(written(dir, server: 1).map { $0.split(separator: "@")[0] })
        servers[1].kill9()
        let killedAt = ContinuousClock.now
        for round in 3..<5 { try publish(writer, round: round) }
        #expect(await waitUntil(timeout: 30) {
            let seen = Set(all())
            return killedHad.allSatisfy { seen.contains("\($0)@4") }
        })
        let takeover = ContinuousClock.now - killedAt
        print("takeover after kill -9: \(takeover) (lease_ttl 1 s)")
        #expect(takeover < .seconds(5))
        expectEachOnce(0..<5, "after the kill")

        // SIGSTOP another past its lease: the third takes everything; the paused one, woken,
        // publishes nothing of what was published meanwhile.
        try await Task.sleep(for: .seconds(2))
        kill(servers[2].process.processIdentifier, SIGSTOP)
        try await Task.sleep(for: .seconds(3))
        for round in 5..<7 { try publish(writer, round: round) }
        #expect(await waitUntil(timeout: 30) { Set(all()).isSuperset(of: devices.map { "\($0)@6" }) })
        let pausedBefore = written(dir, server: 2).count
        kill(servers[2].process.processIdentifier, SIGCONT)
        try await Task.sleep(for: .seconds(3))
        #expect(written(dir, server: 2).count == pausedBefore, "the woken server wrote \(written(dir, server: 2).suffix(5))")
        #expect(servers[2].stderr.contains("lost partition"), "\(servers[2].stderr.suffix(2000))")
        // It rejoins and takes its share again, from the committed positions.
        for round in 7..<9 { try publish(writer, round: round) }
        #expect(await waitUntil(timeout: 30) { Set(all()).isSuperset(of: devices.map { "\($0)@8" }) })
        try await Task.sleep(for: .seconds(1))
        expectEachOnce(0..<9, "after the pause")
    }
}
