import Foundation
import Glibc
import LocusCore
import Testing
@testable import LocusStore

/// Issue 29 item 4: on a full disk (a 2 MB tmpfs in the probe) the journal created one empty
/// segment file per message (2,449 files in 10 s). It must retry the same segment with backoff,
/// create nothing while the disk is full, and say so once.
///
/// A real full disk: a small tmpfs mounted for the test (CI runs as root; elsewhere it is skipped).
@Suite(.enabled(if: getuid() == 0, "mounting a tmpfs needs root")) struct JournalFullDiskTests {
    final class SmallDisk {
        let path: String
        init(kilobytes: Int) throws {
            path = NSTemporaryDirectory() + "locus-full-disk-" + UUID().uuidString
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/mount")
            p.arguments = ["-t", "tmpfs", "-o", "size=\(kilobytes)k", "tmpfs", path]
            try p.run()
            p.waitUntilExit()
            guard p.terminationStatus == 0 else { throw CocoaError(.fileWriteUnknown) }
        }
        deinit {
            _ = umount2(path, 0)
            try? FileManager.default.removeItem(atPath: path)
        }
    }

    static func files(_ dir: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".journal") }.sorted()
    }

    @Test func aFullDiskRetriesTheSameSegmentAndCreatesNoFiles() throws {
        let disk = try SmallDisk(kilobytes: 256)
        // Room for a few segments, then a filler takes the rest.
        let filler = disk.path + "/filler"
        let clock = ManualClock(1_000_000)
        let dir = disk.path + "/journal"
        let j = try EventJournal(directory: dir, settings: JournalSettings.with { $0.segmentBytes = 32 << 10 }, now: { clock.ms })
        FileManager.default.createFile(atPath: filler, contents: nil)
        let handle = try #require(FileHandle(forWritingAtPath: filler))
        let chunk = Data(repeating: 0x55, count: 4096)
        while (try? handle.write(contentsOf: chunk)) != nil {}
        try handle.close()
        // The disk is full now (tmpfs allocates pages as written).
        var index: UInt64 = 0
        func send() -> Bool {
            index += 1
            EventJournalTests.append(j, "region.enter.f.a", EventJournalTests.body("f", index))
            return j.commit()
        }
        var failedAt: UInt64?
        for _ in 0..<200 where failedAt == nil { if !send() { failedAt = index } }
        #expect(failedAt != nil, "the disk never filled")
        let filesWhenFull = Self.files(dir)
        #expect(j.statistics.writeError != nil && j.statistics.writeFailingSinceMs == 1_000_000)
        // Thousands of messages over a minute of (manual) time while the disk stays full.
        for _ in 0..<3000 {
            clock.ms += 20
            #expect(!send())
        }
        #expect(Self.files(dir) == filesWhenFull, "files were created while the disk was full")
        let s = j.statistics
        #expect(s.notWritten == 3000 + 1)
        #expect(s.writeError != nil)
        // Space again: the next try after the backoff (at most 5 s) writes into the same segment.
        try FileManager.default.removeItem(atPath: filler)
        clock.ms += 5_000
        #expect(send())
        #expect(j.statistics.writeError == nil && j.statistics.writeFailingSinceMs == nil)
        #expect(Self.files(dir) == filesWhenFull)
        j.close()
        // What was written is intact and in order: no damage, no half records from the failed writes.
        let (entries, outcome) = EventJournalTests.readAll(dir)
        #expect(outcome.damaged == 0)
        #expect(entries.map(\.0) == Array(1..<failedAt!) + [index])
    }
}
