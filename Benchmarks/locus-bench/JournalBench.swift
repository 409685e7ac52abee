import Foundation
import GRDB
import LocusCore
import LocusStore

/// `journal N DIR`: the event journal on its own (docs/protocol.md 13.1). Appends N
/// region.enter envelopes (about 500 bytes, as the region service writes them), committing
/// every 64 as the hub does per batch, then reads them all back as the catch-up socket does
/// (CRC check, producer and sequence number, copy out). For comparison, the same rows into
/// SQLite through GRDB in WAL mode with synchronous=NORMAL, one transaction per 64: the other
/// store the issue suggested.
enum JournalBench {
    static func body(_ i: Int) -> [UInt8] {
        let region = "r\(i % 10_000)"
        return Array("""
        {"type":"region.enter","version":1,"producer":"fences","seq":\(i + 1),"time":"2026-11-25T10:\(String(format: "%02d", (i / 1000) % 60)):\(String(format: "%02d", i % 60)).000Z","payload":{"region":"\(region)","monitor":"fences","state":"satisfied","previous_state":"unsatisfied","source":"gps0","fix_time":"2026-11-25T10:00:00.000Z","lat":46.0512345,"lon":14.5054321,"h_accuracy":4.5,"distance":12.34,"confidence":0.9987,"since":"2026-11-25T10:00:00.000Z","assumed":false,"detected_after_restart":false,"properties":{"name":"A place"}}}
        """.utf8)
    }

    static func run(count n: Int, directory: String) throws {
        let variants = (0..<1024).map(body)
        let topics = (0..<1024).map { Array("region.enter.r\($0 % 10_000)".utf8) }
        let dir = directory + "/journal-bench-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let journal = try EventJournal(directory: dir, settings: JournalSettings.with { $0.maxBytes = 1 << 40 })
        let c0 = ThreadCPU.snapshot()
        let t0 = now()
        for i in 0..<n {
            topics[i & 1023].withUnsafeBytes { t in variants[i & 1023].withUnsafeBytes { journal.append(topic: t, body: $0) } }
            if i & 63 == 63 { journal.commit() }
        }
        journal.commit()
        let t1 = now()
        let c1 = ThreadCPU.snapshot()
        let bytes = journal.statistics.bytes
        journal.close()
        let cpu = c1.seconds.values.reduce(0, +) - c0.seconds.values.reduce(0, +)
        print("journal append: \(rate(n, t1 - t0)) events/s wall, \(String(format: "%.2f", cpu / Double(n) * 1e6)) µs CPU per event (N=\(n), \(bytes / Int64(n)) B per record on disk)")

        let reader = JournalReader(directory: dir)
        var copied = 0
        var producers = 0
        let t2 = now()
        let outcome = reader.read(from: .oldest) { e in
            if EnvelopeOrigin.read(e.body)?.producer == "fences" { producers += 1 }
            let topic = Array(e.topic), body = Array(e.body)
            copied &+= topic.count + body.count
            return true
        }
        let t3 = now()
        precondition(producers == n && outcome.damaged == 0, "read back \(producers) of \(n)")
        print("journal catch-up read: \(rate(n, t3 - t2)) events/s (CRC, producer and seq, copy; \(copied / n) B per event)")

        let m = min(n, 200_000)
        let path = directory + "/journal-bench-\(getpid()).sqlite"
        defer { for s in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + s) } }
        var config = Configuration()
        config.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        let pool = try DatabasePool(path: path, configuration: config)
        try pool.write { db in
            try db.execute(sql: "CREATE TABLE journal (idx INTEGER PRIMARY KEY, ms INTEGER NOT NULL, topic BLOB NOT NULL, body BLOB NOT NULL)")
        }
        let t4 = now()
        var i = 0
        while i < m {
            let end = min(m, i + 64)
            try pool.write { db in
                let statement = try db.cachedStatement(sql: "INSERT INTO journal VALUES (?, ?, ?, ?)")
                for k in i..<end {
                    try statement.execute(arguments: [k + 1, 1_795_000_000_000, Data(topics[k & 1023]), Data(variants[k & 1023])])
                }
            }
            i = end
        }
        let t5 = now()
        print("sqlite (GRDB, WAL, synchronous=NORMAL) append: \(rate(m, t5 - t4)) events/s (N=\(m), 64 per transaction)")
    }
}
