import Foundation
import LocusCore
import Testing
@testable import LocusStore

/// `kill -9` at random moments while another process commits batches, then reopen and check
/// that every batch is whole and that no batch the writer saw committed is lost.
///
/// The writer is `LocusStoreCrashWriter` (Tests/LocusStoreCrashWriter/main.swift, built by
/// `swift build --build-tests` next to the test bundle); its header describes a batch. After
/// each kill this test reopens the file with `ServiceStateStore` (SQLite recovers the WAL) and
/// checks, with B the batch number in meta "batch" and L the last "committed L" line the writer
/// printed (it prints after `commit` returns):
/// - `PRAGMA integrity_check` is ok;
/// - B is L or L + 1 (the commit that was under way may or may not have reached the WAL);
/// - collection "state" holds exactly KEYS records, each carrying batch B (a batch that starts
///   by deleting the whole collection must not be seen half done either);
/// - the outbox holds 1 to 4 events with consecutive ids, the last one being batch B's, and ids
///   never go back from one run to the next.
@Suite struct CrashSafetyTests {
    static let trials = 30
    static let keysPerBatch = 20

    static func writerPath() -> String? {
        if let path = ProcessInfo.processInfo.environment["LOCUS_STORE_CRASH_WRITER"] { return path }
        guard let exe = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") else { return nil }
        let path = (exe as NSString).deletingLastPathComponent + "/LocusStoreCrashWriter"
        return FileManager.default.isExecutableFile(atPath: path) ? path : nil
    }

    @Test(.timeLimit(.minutes(5)))
    func killNineAtRandomMomentsKeepsEveryBatchWholeAndLosesNothingCommitted() throws {
        let writer = try #require(Self.writerPath(),
            "LocusStoreCrashWriter not found next to the test bundle: build with `swift build --build-tests`")
        let dir = TemporaryDirectory()
        let path = dir.file("state/crash.sqlite")
        let seed = ProcessInfo.processInfo.environment["LOCUS_STORE_CRASH_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max)
        var random = SplitMix64(seed: seed)
        var previousBatch = 0, previousMaxID: Int64 = 0, trialsThatCommitted = 0

        for trial in 0..<Self.trials {
            let context = "trial \(trial), seed \(seed) (rerun with LOCUS_STORE_CRASH_SEED=\(seed))"
            let log = dir.file("trial-\(trial).out"), errors = dir.file("trial-\(trial).err")
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            _ = FileManager.default.createFile(atPath: errors, contents: nil)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: writer)
            process.arguments = ["loop", path, String(Self.keysPerBatch)]
            process.standardOutput = FileHandle(forWritingAtPath: log)
            process.standardError = FileHandle(forWritingAtPath: errors)
            try process.run()

            // Every fifth kill lands anywhere from start-up on (opening, creating the schema,
            // WAL recovery of the previous kill); the others once the writer is committing.
            if trial % 5 != 0 {
                let deadline = Date().addingTimeInterval(60)
                while !((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").contains("ready"), process.isRunning, Date() < deadline {
                    usleep(1000)
                }
            }
            usleep(UInt32.random(in: 0..<(trial % 5 == 0 ? 40_000 : 80_000), using: &random))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let stderr = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            try #require(process.terminationReason == .uncaughtSignal && process.terminationStatus == SIGKILL,
                         "the writer ended by itself (\(process.terminationStatus)): \(stderr) — \(context)")

            let lines = ((try? String(contentsOfFile: log, encoding: .utf8)) ?? "").split(separator: "\n", omittingEmptySubsequences: false)
            // The last element is "" after a complete line, or a partial line: ignored either way.
            let lastCommitted = lines.dropLast().compactMap { $0.hasPrefix("committed ") ? Int($0.dropFirst(10)) : nil }.last
            if lastCommitted != nil { trialsThatCommitted += 1 }
            let sawCommitted = lastCommitted ?? previousBatch

            let store = try ServiceStateStore(path: path, kind: "crashtest")
            defer { try? store.close() }
            #expect(try store.integrityCheck() == ["ok"], "\(context)")
            let batch = Int(try store.meta("batch") ?? "0") ?? -1
            #expect(batch == sawCommitted || batch == sawCommitted + 1,
                    "meta batch \(batch) but the writer saw batch \(sawCommitted) committed — \(context)")
            #expect(batch >= previousBatch, "\(context)")

            let records = try store.records(in: "state")
            let events = try store.pending()
            if batch == 0 {
                #expect(records.isEmpty && events.isEmpty, "\(context)")
            } else {
                #expect(records.count == Self.keysPerBatch, "a batch was applied in part: \(records.count) keys — \(context)")
                let batches = Set(records.map { $0.value["batch"]?.doubleValue ?? -1 })
                #expect(batches == [Double(batch)], "records carry batches \(batches.sorted()), meta says \(batch) — \(context)")
                #expect((1...4).contains(events.count), "\(events.count) unacknowledged events — \(context)")
                #expect(events.last?.body == "{\"batch\":\(batch)}", "\(context)")
                #expect(events.last?.committedMs == Int64(batch), "\(context)")
                let ids = events.map(\.id)
                let eventBatches = events.compactMap { (try? JSONValue.decode(Array($0.body.utf8)))?["batch"]?.doubleValue }
                #expect(ids == Array(ids.first!...ids.last!), "outbox ids \(ids) — \(context)")
                #expect(eventBatches == (0..<events.count).map { Double(batch - events.count + 1 + $0) }, "\(context)")
                #expect(ids.last! >= previousMaxID, "outbox ids went back: \(ids) after \(previousMaxID) — \(context)")
                previousMaxID = ids.last!
            }
            previousBatch = batch
        }
        // Without enough commits interrupted, the test would prove nothing.
        #expect(trialsThatCommitted >= Self.trials / 2, "only \(trialsThatCommitted) runs committed anything (seed \(seed))")
        #expect(previousBatch >= Self.trials, "only \(previousBatch) batches in \(Self.trials) runs (seed \(seed))")
    }
}

/// A small seeded generator, so a failing run can be repeated with its seed.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
