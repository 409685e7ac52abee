import Foundation
import LocusCore
@testable import LocusRuntime
import LocusStore
import Testing

/// The keeper's input positions and topic sequence numbers: one row per commit, read back in
/// commit order, compacted to one row when the log outgrows the map.
@Suite struct LoggedTextMapTests {
    static func store() throws -> (ServiceStateStore, String) {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("logged-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return (try ServiceStateStore(path: dir + "/s.sqlite", kind: "service"), dir)
    }

    static func fresh() -> LoggedTextMap { LoggedTextMap(collection: "log", legacyCollection: "old") }

    @Test func aFleetsBatchesAreOneRowEachAndReadBackAsTheLatestValues() throws {
        let (store, dir) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var map = Self.fresh()
        _ = try map.load(from: store)
        var expected: [String: String] = [:]
        var rng = SystemRandomNumberGenerator()
        var maxRows = 0
        for batch in 0..<300 {
            // 200 of 3,000 devices per batch, each with its batch number.
            let changed = (0..<200).map { _ in "d\(Int.random(in: 0..<3000, using: &rng))" }.map { ($0, "\(batch)") }
            for (k, v) in changed { expected[k] = v }
            var changes = StateChanges()
            map.commit(changed, into: &changes)
            _ = try store.commit(changes)
            maxRows = max(maxRows, try store.textRecords(in: "log").count)
            if batch % 50 == 0 || batch == 299 {
                var reread = Self.fresh()
                #expect(try reread.load(from: store) == 0)
                #expect(reread.values == expected, "batch \(batch)")
            }
        }
        // The log stays within `compactionFactor` times the map: 3,000 entries at 200 a row, at
        // most ~61 rows with the factor 4.
        #expect(maxRows <= LoggedTextMap.compactionFactor * 3000 / 200 + 2, "\(maxRows) rows")
        #expect(map.values == expected)
    }

    /// A key given no text is deleted: the row holds `null` for it, and a compaction drops it.
    @Test func anEntryWithoutTextDeletesItsKeyAcrossARestartAndACompaction() throws {
        let (store, dir) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var map = Self.fresh()
        _ = try map.load(from: store)
        var changes = StateChanges()
        map.commit([("a", "1"), ("b", "2")], into: &changes)
        map.commit([("a", nil)], into: &changes)
        _ = try store.commit(changes)
        #expect(map.values == ["b": "2"])
        var reread = Self.fresh()
        #expect(try reread.load(from: store) == 0)
        #expect(reread.values == ["b": "2"])
        // Adopted entries (rows of an earlier form) make the next commit write the whole map.
        reread.adopt(["c": "3", "b": "old"])
        #expect(reread.needsCommit)
        var whole = StateChanges()
        reread.commit([], into: &whole)
        _ = try store.commit(whole)
        #expect(try store.textRecords(in: "log").count == 1)
        var third = Self.fresh()
        _ = try third.load(from: store)
        #expect(third.values == ["b": "2", "c": "3"])
    }

    @Test func rowsOfTheOneRowPerEntryFormAreReadThenReplaced() throws {
        let (store, dir) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var old = StateChanges()
        old.put("old", key: "gps0 obs.fix.gps0", json: "[1000,2]")
        old.put("old", key: "gps1 obs.fix.gps1", json: "[2000,1]")
        _ = try store.commit(old)
        var map = Self.fresh()
        _ = try map.load(from: store)
        #expect(map.values == ["gps0 obs.fix.gps0": "[1000,2]", "gps1 obs.fix.gps1": "[2000,1]"])
        var changes = StateChanges()
        map.commit([("gps1 obs.fix.gps1", "[3000,1]")], into: &changes)
        _ = try store.commit(changes)
        #expect(try store.textRecords(in: "old").isEmpty)
        var reread = Self.fresh()
        _ = try reread.load(from: store)
        #expect(reread.values == ["gps0 obs.fix.gps0": "[1000,2]", "gps1 obs.fix.gps1": "[3000,1]"])
    }

    @Test func aDamagedRowIsSkippedCountedAndCompactedAway() throws {
        let (store, dir) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var map = Self.fresh()
        _ = try map.load(from: store)
        var changes = StateChanges()
        map.commit([("a", "1")], into: &changes)
        _ = try store.commit(changes)
        var damage = StateChanges()
        damage.put("log", key: "0000000000000000001", json: "{\"b\":")
        _ = try store.commit(damage)
        var reread = Self.fresh()
        #expect(try reread.load(from: store) == 1)
        #expect(reread.values == ["a": "1"])
        var next = StateChanges()
        reread.commit([("c", "3")], into: &next)
        _ = try store.commit(next)
        #expect(try store.textRecords(in: "log").count == 1)
        var last = Self.fresh()
        #expect(try last.load(from: store) == 0)
        #expect(last.values == ["a": "1", "c": "3"])
    }

    /// Rows are keyed by the keeper's counter, 19 digits. A key that is not (a damaged store,
    /// or one past the counter's range, which once overflowed `nextRow` and trapped) is damage:
    /// counted, its entries not used, compacted away by the next commit.
    @Test func aRowKeyOutsideTheCounterIsDamageNotATrap() throws {
        let (store, dir) = try Self.store()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var damage = StateChanges()
        damage.put("log", key: "0000000000000000000", json: "{\"a\":\"1\"}")
        damage.put("log", key: "9223372036854775807", json: "{\"b\":\"2\"}")
        damage.put("log", key: "x", json: "{\"c\":\"3\"}")
        damage.put("log", key: "-000000000000000001", json: "{\"d\":\"4\"}")
        _ = try store.commit(damage)
        var map = Self.fresh()
        #expect(try map.load(from: store) == 3)
        #expect(map.values == ["a": "1"])
        var next = StateChanges()
        map.commit([("e", "5")], into: &next)
        _ = try store.commit(next)
        var last = Self.fresh()
        #expect(try last.load(from: store) == 0)
        #expect(last.values == ["a": "1", "e": "5"])
        #expect(try store.textRecords(in: "log").keys.sorted() == ["0000000000000000001"])
    }
}
