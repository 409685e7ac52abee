import Foundation
import LocusStore
import Testing

/// Issue 14, item 3: `kill -9` at random moments under load never loses what a subscriber saw
/// and never leaves the journal unreadable. Twenty times: start `locus run` (a looping replay
/// at full speed through standard and region, journal segments of 64 KiB so kills also land
/// around segment changes), kill it after a random 0.4 to 2 s; an outside subscriber records
/// every body it receives. After each kill: the daemon starts again on the same journal; at the
/// end every record is intact (CRC), indices run 1, 2, 3, … with no hole, and every body the
/// subscriber saw is in the journal (as a multiset: runs repeat the same events).
@Suite(.serialized) struct JournalKillTests {
    static let kills = 20

    @Test func randomKillsLoseNothingASubscriberSawAndLeaveTheJournalReadable() async throws {
        let dir = E2E.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let config = dir + "/config.yaml"
        try """
        hub:
          publish: [ipc://\(dir)/publish.sock, "tcp://127.0.0.1:\(try MetricsTests.freePort())"]
          state_directory: \(dir)/state
          journal_segment_bytes: 65536
        sources:
          - type: replay
            id: walk
            file: \(E2E.fixture("walk-short.jsonl"))
            speed: max
            loop: true
        services:
          - type: standard
            id: here
            distance_filter: 0
          - type: region
            id: fences
            persist: false
            regions:
              - {id: a, center: {lat: 46.0516, lon: 14.5060}, radius: 30}
        """.write(toFile: config, atomically: true, encoding: .utf8)
        let env = ["LOCUS_RUNTIME_DIR": dir, "LOCUS_LOG_LEVEL": "warning"]
        let seenPath = dir + "/seen.txt"
        let subscriber = try ChildProcess(E2E.python, [E2E.script("record_bodies.py"), "ipc://\(dir)/publish.sock", seenPath,
                                                       "location.", "region.", "status."], directory: dir)
        defer { subscriber.kill9() }
        #expect(await waitUntil(timeout: 10) { subscriber.stdout.contains("ready") })

        var recovered = 0
        for trial in 1...Self.kills {
            let locus = try ChildProcess(E2E.binary, ["run", config], directory: dir, environment: env)
            let started = await waitUntil(timeout: 15) { FileManager.default.fileExists(atPath: dir + "/catchup.sock") }
            #expect(started, "trial \(trial): \(locus.stderr)")
            try await Task.sleep(nanoseconds: UInt64.random(in: 400_000_000...2_000_000_000))
            locus.kill9()
            _ = await locus.wait(timeout: 5)
            if locus.stderr.contains("half-written record") { recovered += 1 }
            #expect(!locus.stderr.contains("error"), "trial \(trial): \(locus.stderr.suffix(2000))")
            // The socket files a killed daemon leaves behind are stale; the next start replaces them.
            try? FileManager.default.removeItem(atPath: dir + "/catchup.sock")
        }
        // What the subscriber received has reached its file.
        try await Task.sleep(nanoseconds: 500_000_000)
        subscriber.kill9()

        var journaled: [String: Int] = [:]
        var indices: [UInt64] = []
        let outcome = JournalReader(directory: dir + "/state/journal").read(from: .oldest) { e in
            indices.append(e.index)
            journaled[String(decoding: e.body, as: UTF8.self), default: 0] += 1
            return true
        }
        #expect(outcome.damaged == 0 && outcome.reachedEnd)
        #expect(indices.first == 1 && indices == Array(1...UInt64(indices.count)), "holes or repeats in the journal's indices")
        let seen = ((try? String(contentsOfFile: seenPath, encoding: .utf8)) ?? "").split(separator: "\n").map(String.init)
        #expect(seen.count > 1000, "the subscriber saw too little for the test to mean anything: \(seen.count)")
        var seenCounts: [String: Int] = [:]
        for body in seen { seenCounts[body, default: 0] += 1 }
        let missing = seenCounts.filter { (journaled[$0.key] ?? 0) < $0.value }
        #expect(missing.isEmpty, "\(missing.count) bodies seen but not journaled, e.g. \(missing.first?.key.prefix(200) ?? "")")
        print("journal kill test: \(Self.kills) kills, \(indices.count) records, \(seen.count) seen by the subscriber, \(recovered) torn tails cut")
    }
}
