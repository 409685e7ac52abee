import Foundation
import LocusTestKit
import Testing

/// What a `nats` group says about itself, in a user's terms (issue 50, item 4): one line per
/// membership change (who joined, left or expired; how many partitions moved, from whom)
/// instead of one per partition; no warning while a new cluster elects its JetStream leaders;
/// and a stop within the runtime's stop budget, even when NATS stops answering.
@Suite(.serialized) struct NATSGroupLogTests {
    func config(_ dir: String, server: Int, urls: [String]) -> String {
        let servers = urls.map { "\"\($0)\"" }.joined(separator: ", ")
        return """
        hub:
          state_directory: \(dir)/s\(server)/state
        sources:
          - {type: nats, id: fleet, servers: [\(servers)], subjects: ["locus.fixes.>"], filter: "locus.fixes.*.>",
             device_tokens: [3], group: logs, partitions: 16, lease_ttl: 2, member: server\(server), replicas: 3}
        sinks:
          - {type: file, id: fixes, path: \(dir)/s\(server)/fixes.jsonl, topics: ["obs.fix."]}
        """
    }

    @Test func membershipChangesAreOneLineEachStartIsQuietAndStopIsInTime() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let nodes = try NATSServer.cluster(directory: dir + "/nats", size: 3)
        defer { for n in nodes { n.kill9() } }
        // The servers start with the cluster, as examples/fleet/README.md runs them: node 1 first,
        // the others a moment later, so the stream and the bucket wait for their leaders.
        try nodes[0].start()
        var servers: [ChildProcess] = []
        defer { for s in servers { s.kill9() } }
        for i in 0..<3 {
            try FileManager.default.createDirectory(atPath: "\(dir)/s\(i)", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try config(dir, server: i, urls: nodes.map(\.url)).write(toFile: "\(dir)/s\(i).yaml", atomically: true, encoding: .utf8)
            servers.append(try ChildProcess(E2E.binary, ["run", "\(dir)/s\(i).yaml"], directory: dir, environment: ["LOCUS_RUNTIME_DIR": "\(dir)/s\(i)"]))
        }
        try await Task.sleep(for: .seconds(2))
        for n in nodes.dropFirst() { try n.start() }
        func logs() -> String { servers.map(\.stderr).joined(separator: "\n----\n") }
        // Settled: the last membership line of each server says what it holds, 16 in all.
        func held(_ i: Int) -> Int? { NATSGroupLog.changes(servers[i].stderr).last.flatMap { Int($0["held"] ?? "") } }
        #expect(await waitUntil(timeout: 60) {
            let h = (0..<3).map(held)
            return h.allSatisfy { ($0 ?? 0) > 0 } && h.compactMap { $0 }.reduce(0, +) == 16
        }, "\(logs().suffix(4000))")
        // The normal start-up wait (leaders being elected) is no warning.
        let startWarnings = logs().split(separator: "\n").filter { $0.contains(" warning ") || $0.contains(" error ") }
        #expect(startWarnings.isEmpty, "\(startWarnings.joined(separator: "\n"))")

        // kill -9 server 1: each survivor says once that it expired and how many partitions it took from it.
        let killedHeld = held(1) ?? 0
        let linesBefore = [0, 2].map { NATSGroupLog.changes(servers[$0].stderr).count }
        servers[1].kill9()
        func sinceKill() -> [[String: String]] { [0, 2].enumerated().flatMap { NATSGroupLog.changes(servers[$1].stderr).dropFirst(linesBefore[$0]) } }
        #expect(await waitUntil(timeout: 30) {
            let lines = sinceKill()
            return lines.contains { $0["expired"] == "server1" } && lines.compactMap { NATSGroupLog.taken(from: "server1", $0) }.reduce(0, +) == killedHeld
        }, "\(logs().suffix(4000))")
        // One line per survivor says so (not one per partition).
        #expect(sinceKill().filter { $0["expired"] == "server1" }.count == 2, "\(sinceKill())")
        for i in [0, 2] {
            let info = servers[i].stderr.split(separator: "\n").filter { $0.contains(" info ") && $0.contains("took partition") }
            #expect(info.isEmpty, "server \(i) logged \(info.count) 'took partition' lines at info")
        }
        // A clean stop of server 2: within its budget, and server 0 says it left.
        let stopped = await servers[2].terminate(timeout: 10)
        #expect(stopped.status == 0)
        #expect(!servers[2].stderr.contains("abandoned") && !servers[2].stderr.contains("did not stop in time"), "\(servers[2].stderr.suffix(2000))")
        #expect(await waitUntil(timeout: 15) {
            NATSGroupLog.changes(servers[0].stderr).contains { $0["left"] == "server2" && NATSGroupLog.taken(from: "server2", $0) != nil }
        }, "\(servers[0].stderr.suffix(3000))")

        // NATS stops answering (every node frozen), then server 0 is stopped: it gives up its
        // requests instead of waiting out their timeouts, and stops within its budget.
        for n in nodes { n.signal(SIGSTOP) }
        defer { for n in nodes { n.signal(SIGCONT) } }
        try await Task.sleep(for: .milliseconds(300))
        let frozen = await servers[0].terminate(timeout: 10)
        #expect(frozen.status == 0)
        #expect(!servers[0].stderr.contains("abandoned") && !servers[0].stderr.contains("did not stop in time"), "\(servers[0].stderr.suffix(2000))")
    }
}

/// The `nats` source's membership lines (`group membership changed`), as key-value pairs.
enum NATSGroupLog {
    static func changes(_ log: String) -> [[String: String]] {
        log.split(separator: "\n").filter { $0.contains("group membership changed") }.map { line in
            var fields: [String: String] = [:]
            for word in line.split(separator: " ") {
                guard let eq = word.firstIndex(of: "=") else { continue }
                fields[String(word[..<eq])] = String(word[word.index(after: eq)...])
            }
            return fields
        }
    }

    /// How many partitions a line says were taken from `member` (`from=server1:8,new:2`).
    static func taken(from member: String, _ fields: [String: String]) -> Int? {
        for part in (fields["from"] ?? "").split(separator: ",") {
            let pair = part.split(separator: ":")
            if pair.count == 2, pair[0] == member { return Int(pair[1]) }
        }
        return nil
    }

    /// Partitions taken, summed over a log's membership lines (and, from a `locus` of before
    /// issue 50, its `took partition` lines at info: the tests run against an older binary too).
    static func partitionsTaken(_ log: String) -> Int {
        let older = log.split(separator: "\n").filter { $0.contains(" info ") && $0.contains("took partition") }.count
        return changes(log).compactMap { Int($0["took"] ?? "") }.reduce(0, +) + older
    }
}
