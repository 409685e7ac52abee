import Foundation
import Testing
import LocusCore
@testable import LocusStore

/// What a catch-up page serves (docs/protocol.md 13.2), against a real journal.
@Suite struct CatchupScanTests {
    final class Journal {
        let dir = NSTemporaryDirectory() + "locus-catchup-" + UUID().uuidString
        let journal: EventJournal
        init(segmentBytes: Int = 8 << 20) throws {
            journal = try EventJournal(directory: dir, settings: JournalSettings.with { $0.segmentBytes = segmentBytes })
        }
        deinit { journal.close(); try? FileManager.default.removeItem(atPath: dir) }

        func add(_ topic: String, _ producer: String, _ seq: UInt64) {
            let body = Array("{\"type\":\"location.update\",\"version\":1,\"producer\":\"\(producer)\",\"seq\":\(seq),\"time\":\"2026-11-25T10:00:00.000Z\",\"payload\":{}}".utf8)
            Array(topic.utf8).withUnsafeBytes { t in body.withUnsafeBytes { journal.append(topic: t, body: $0) } }
            journal.commit()
        }
        var reader: JournalReader { JournalReader(directory: dir) }
    }

    /// (producer, seq) of every event served, paging until the end.
    static func serve(_ j: Journal, _ request: CatchupPageRequest) -> (events: [String], truncated: Bool, pages: Int) {
        var pending = request.after.mapValues { CatchupCursor.Pending(after: $0, last: 0) }
        var start = JournalPosition.oldest
        var out: [String] = []
        var truncated = false
        var pages = 0
        while true {
            let page = CatchupScan.page(j.reader, request: request, start: start, pending: pending)
            pages += 1
            truncated = truncated || page.truncated
            for e in page.events {
                let o = e.body.withUnsafeBytes { EnvelopeOrigin.read($0)! }
                out.append("\(o.producer):\(o.seq)")
            }
            if page.end { return (out, truncated, pages) }
            // As a client does: the cursor alone (no position hint).
            start = JournalPosition(index: page.cursor.index)
            pending = page.cursor.pending
        }
    }

    @Test func afterSkipsWhatEachProducerWasSeenToHaveSentAndPagesJoinUp() throws {
        let j = try Journal()
        for k in 1...50 {
            j.add("location.update.a", "a", UInt64(k))
            if k % 2 == 0 { j.add("region.enter.b.x", "b", UInt64(k / 2)) }
        }
        var request = CatchupPageRequest(topics: [])
        request.after = ["a": 40, "b": 5]
        request.limit = 3
        let served = Self.serve(j, request)
        #expect(served.events.filter { $0.hasPrefix("a:") } == (41...50).map { "a:\($0)" })
        #expect(served.events.filter { $0.hasPrefix("b:") } == (6...25).map { "b:\($0)" })
        #expect(!served.truncated && served.pages > 5)
        // Topics filter by prefix; no after: everything.
        request = CatchupPageRequest(topics: ["region."])
        #expect(Self.serve(j, request).events == (1...25).map { "b:\($0)" })
    }

    @Test func aProducerThatRestartedIsServedFromTheRestart() throws {
        let j = try Journal()
        for k in 1...30 { j.add("location.update.a", "a", UInt64(k)) }
        for k in 1...5 { j.add("location.update.a", "a", UInt64(k)) } // restarted after 30
        var request = CatchupPageRequest(topics: [])
        request.after = ["a": 20]
        request.limit = 4 // the restart falls on a later page than the subscriber's position
        #expect(Self.serve(j, request).events == (21...30).map { "a:\($0)" } + (1...5).map { "a:\($0)" })
        // Seen up to 3 after the restart: only 4 and 5 are new. (The first a:3 passes the
        // position; the scan then serves everything after it.)
        request.after = ["a": 3]
        let again = Self.serve(j, request).events
        #expect(again.suffix(2) == ["a:4", "a:5"])
    }

    @Test func recordsGoneToRetentionAreReportedAsTruncated() throws {
        let j = try Journal(segmentBytes: 64 << 10)
        for k in 1...3000 { j.add("location.update.a", "a", UInt64(k)) }
        // Delete the oldest segment by hand, as retention would.
        let first = JournalSegments.list(j.dir)[0]
        unlink(JournalSegments.path(j.dir, first: first))
        var request = CatchupPageRequest(topics: [])
        request.after = ["a": 10]
        let served = Self.serve(j, request)
        #expect(served.truncated)
        #expect(served.events.last == "a:3000")
        request.after = ["a": 2990]
        let late = Self.serve(j, request)
        #expect(!late.truncated && late.events == (2991...3000).map { "a:\($0)" })
    }

    /// Issue 29 item 2: a flipped byte in the middle of a segment hid the rest of the segment
    /// from catch-up, with no truncated flag. Now only the damaged record is missing, and the
    /// page says so.
    @Test func aDamagedRecordIsReportedAndTheRestServed() throws {
        let j = try Journal()
        for k in 1...1000 { j.add("location.update.a", "a", UInt64(k)) }
        let path = JournalSegments.path(j.dir, first: 1)
        var bytes = try #require(FileManager.default.contents(atPath: path))
        // Record 500's body: records are the same size after the index grows to three digits.
        var at = JournalRecord.segmentMagic.count
        var offset500 = 0
        bytes.withUnsafeBytes { raw in
            while case .record(let e, let size) = JournalRecord.parse(UnsafeRawBufferPointer(rebasing: raw[at...])) {
                if e.index == 500 { offset500 = at }
                at += size
            }
        }
        bytes[offset500 + 60] ^= 0x01
        try bytes.write(to: URL(fileURLWithPath: path))
        let page = CatchupScan.page(j.reader, request: CatchupPageRequest(topics: []), start: .oldest, pending: [:])
        #expect(page.damaged == 1 && page.truncated && page.end)
        let served = Self.serve(j, CatchupPageRequest(topics: []))
        #expect(served.truncated)
        #expect(served.events == (1...1000).filter { $0 != 500 }.map { "a:\($0)" })
    }
}
