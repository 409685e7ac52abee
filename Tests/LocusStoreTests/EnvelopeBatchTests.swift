import Foundation
import LocusCore
import Testing
@testable import LocusStore

/// One outbox row per batch of envelopes (`StateChanges.append(envelopes:time:)`): what goes in
/// comes back in order, whatever bytes a topic holds, and a damaged row never traps.
@Suite struct EnvelopeBatchTests {
    /// Topics with the framing's own bytes (space, newline, digits), none at all, and UTF-8.
    static let envelopes: [(topic: String, body: [UInt8])] = [
        ("location.update", Array(#"{"type":"location.update","seq":1}"#.utf8)),
        ("region.enter.van 7", Array(#"{"a":"b c"}"#.utf8)),
        ("12 34\n5", Array("\n\n 9 9\n".utf8)),
        ("", []),
        ("région.exit.ümlaut", Array(#"{"name":"Ljubljana – center"}"#.utf8)),
    ]

    static func decoded(_ list: [(topic: String, body: [UInt8])]) -> [String] {
        list.map { $0.topic + "|" + String(decoding: $0.body, as: UTF8.self) }
    }

    @Test func envelopesComeBackAsWritten() throws {
        let text = EnvelopeBatch.text(Self.envelopes)
        let back = try #require(EnvelopeBatch.envelopes(in: text))
        #expect(back.map { $0.topic + "|" + $0.body } == Self.decoded(Self.envelopes))
        #expect(EnvelopeBatch.envelopes(in: "")?.isEmpty == true)
    }

    /// Every prefix of a row either does not read or reads as the envelopes it holds whole;
    /// every byte replaced by each of a few others never traps and never reads past the text.
    @Test func aDamagedRowReadsAsNothingOrAsWholeEnvelopes() {
        let bytes = Array(EnvelopeBatch.text(Self.envelopes).utf8)
        let all = Self.decoded(Self.envelopes)
        for cut in 0 ... bytes.count {
            let text = String(decoding: bytes[..<cut], as: UTF8.self)
            guard let back = EnvelopeBatch.envelopes(in: text) else { continue }
            let got = back.map { $0.topic + "|" + $0.body }
            #expect(Array(all.prefix(got.count)) == got, "cut at \(cut)")
        }
        var readable = 0
        for at in bytes.indices {
            for replacement: UInt8 in [0, 10, 32, 48, 57, 58, 255] {
                var damaged = bytes
                damaged[at] = replacement
                if let back = EnvelopeBatch.envelopes(in: String(decoding: damaged, as: UTF8.self)) {
                    readable += 1
                    #expect(back.reduce(0) { $0 + $1.topic.utf8.count + $1.body.utf8.count } <= damaged.count * 3)
                }
            }
        }
        #expect(readable > 0)  // a digit for a digit still reads: the check above ran
        #expect(EnvelopeBatch.envelopes(in: "99999999999 1\nx") == nil)  // a length of 11 digits
        #expect(EnvelopeBatch.envelopes(in: "3 4\nabc") == nil)  // past the end
        #expect(EnvelopeBatch.envelopes(in: "3 -4\nabc") == nil)
    }

    /// The store reads rows of one envelope (written before batches) and batch rows in commit
    /// order, skips and counts a batch row that does not read, and acknowledges through all.
    @Test func pendingEnvelopesReadBothKindsOfRowInOrder() throws {
        let store = try ServiceStateStore.inMemory(kind: "service")
        // A row of one envelope, as the version before batches wrote it.
        try store.executeForTesting("INSERT INTO outbox (topic, time_ms, event_type, payload) VALUES ('t.old', 5, 'locus.envelope', 'old')")
        var second = StateChanges()
        second.append(envelopes: [("t.a", Array("A".utf8)), ("t.b", Array("B".utf8))], time: EventTime(milliseconds: 7))
        second.append(envelopes: [], time: EventTime(milliseconds: 7))  // appends no row
        let ids = try store.commit(second)
        #expect(ids.count == 1)
        try store.executeForTesting("INSERT INTO outbox (topic, time_ms, event_type, payload) VALUES ('', 9, 'locus.envelopes', '7 1\nshort')")
        var third = StateChanges()
        third.append(envelopes: [("t.c", Array("C".utf8))], time: EventTime(milliseconds: 11))
        let lastIDs = try store.commit(third)

        let pending = try store.pendingEnvelopes()
        #expect(pending.envelopes.map { $0.topic + "|" + $0.body } == ["t.old|old", "t.a|A", "t.b|B", "t.c|C"])
        #expect(pending.envelopes.map(\.committedMs) == [5, 7, 7, 11])
        #expect(pending.envelopes[1].id == pending.envelopes[2].id)
        #expect(pending.unreadableIDs.count == 1)
        #expect(pending.lastID == lastIDs.last)

        var ack = StateChanges()
        ack.acknowledge(through: try #require(pending.lastID))
        try store.commit(ack)
        let after = try store.pendingEnvelopes()
        #expect(after.envelopes.isEmpty && after.unreadableIDs.isEmpty && after.lastID == nil)
    }
}
