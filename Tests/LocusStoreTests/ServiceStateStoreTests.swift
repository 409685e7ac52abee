import Foundation
import LocusCore
import Testing
@testable import LocusStore

/// Every operation of a batch, and the all-or-nothing rule, on an in-memory store (the file
/// store runs the same code; StoreFileTests covers what only a file has).
@Suite struct ServiceStateStoreTests {
    let store: ServiceStateStore

    init() throws {
        store = try ServiceStateStore.inMemory(kind: "region")
    }

    func keys(_ collection: String) throws -> [String] {
        try store.records(in: collection).map(\.key)
    }

    @Test func putStoresRecordsReadBackInKeyOrderPerCollection() throws {
        var c = StateChanges()
        c.put("state", key: "b", value: .string("B"))
        c.put("state", key: "a", value: .number(1))
        c.put("state", key: "ä", value: .null)  // UTF-8 byte order: after every ASCII key
        c.put("state", key: "B", value: .bool(true))
        c.put("condition", key: "a", value: .string("other collection"))
        try store.commit(c)
        let state = try store.records(in: "state")
        #expect(state.map(\.key) == ["B", "a", "b", "ä"])
        #expect(state.map(\.value) == [.bool(true), .number(1), .string("B"), .null])
        #expect(try store.records(in: "condition").map(\.value) == [.string("other collection")])
        #expect(try store.records(in: "missing").isEmpty)
    }

    @Test func putReplacesAndDeleteRemovesOneKey() throws {
        var c = StateChanges()
        c.put("state", key: "a", value: .number(1))
        c.put("state", key: "b", value: .number(2))
        c.put("condition", key: "a", value: .number(3))
        try store.commit(c)
        var d = StateChanges()
        d.put("state", key: "a", value: .number(10))
        d.delete("state", key: "b")
        d.delete("state", key: "never-there")
        try store.commit(d)
        #expect(try store.records(in: "state").map(\.value) == [.number(10)])
        #expect(try store.records(in: "condition").map(\.value) == [.number(3)])
    }

    @Test func deleteAllClearsOnlyThatCollection() throws {
        var c = StateChanges()
        for k in ["x", "y", "z"] { c.put("state", key: k, value: .null) }
        c.put("condition", key: "x", value: .null)
        try store.commit(c)
        var d = StateChanges()
        d.deleteAll(in: "state")
        try store.commit(d)
        #expect(try keys("state").isEmpty)
        #expect(try keys("condition") == ["x"])
        #expect(try store.isEmpty(collection: "state") && !store.isEmpty(collection: "condition"))
        #expect(try store.isEmpty(collection: "never written"))
    }

    @Test func changesApplyInCallOrder() throws {
        var c = StateChanges()
        c.put("s", key: "put-then-delete", value: .number(1))
        c.delete("s", key: "put-then-delete")
        c.delete("s", key: "delete-then-put")
        c.put("s", key: "delete-then-put", value: .number(2))
        c.put("s", key: "overwritten", value: .number(3))
        c.put("s", key: "overwritten", value: .number(4))
        c.put("t", key: "cleared", value: .number(5))
        c.deleteAll(in: "t")
        c.put("t", key: "after-clear", value: .number(6))
        c.setMeta("m", "first")
        c.setMeta("m", "second")
        c.setMeta("gone", "x")
        c.setMeta("gone", nil)
        #expect(c.count == 13)
        try store.commit(c)
        #expect(try store.records(in: "s").map(\.key) == ["delete-then-put", "overwritten"])
        #expect(try store.records(in: "s").map(\.value) == [.number(2), .number(4)])
        #expect(try keys("t") == ["after-clear"])
        #expect(try store.meta("m") == "second")
        #expect(try store.meta("gone") == nil)
    }

    @Test func metaIsSetReplacedAndDeleted() throws {
        #expect(try store.meta("cursor") == nil)
        var c = StateChanges()
        c.setMeta("cursor", "2024-05-17T08:00:00.000Z")
        c.setMeta("empty", "")
        try store.commit(c)
        #expect(try store.meta("cursor") == "2024-05-17T08:00:00.000Z")
        #expect(try store.meta("empty") == "")
        var d = StateChanges()
        d.setMeta("cursor", "later")
        d.setMeta("empty", nil)
        try store.commit(d)
        #expect(try store.meta("cursor") == "later")
        #expect(try store.meta("empty") == nil)
    }

    static let jsonValues: [JSONValue] = [
        .null, .bool(false), .bool(true), .number(0), .number(-0.0), .number(42), .number(-17),
        .number(0.1), .number(1.0 / 3), .number(45.772175035), .number(-122.41941550000001),
        .number(1e300), .number(.leastNonzeroMagnitude), .number(9_007_199_254_740_994), .number(-9_007_199_254_740_992),
        .string(""), .string("quote \" backslash \\ slash / newline \n tab \t nul \u{0} bell \u{7}"),
        .string("héllo wörld ✓ 🛰️ \u{2028}"), .string(String(repeating: "long ", count: 2000)),
        .array([]), .object([:]),
        .array([.number(1), .string("two"), .null, .array([.bool(true)]), .object(["k": .number(2.5)])]),
        .object(["z": .number(1), "a": .object(["nested": .array([.string("deep")])]), "": .string("empty key"),
                 "ключ": .string("unicode key"), "with \"quote\"": .null]),
    ]

    @Test(arguments: jsonValues) func jsonValueRoundTripsExactly(_ value: JSONValue) throws {
        var c = StateChanges()
        c.put("state", key: "v", value: value)
        try store.commit(c)
        let back = try #require(store.records(in: "state").first?.value)
        #expect(back == value)
        if case .number(let n) = value, case .number(let m) = back {
            #expect(n.bitPattern == m.bitPattern, "a Double must read back bit for bit, sign of zero included")
        }
    }

    @Test(arguments: [Int64.min, -1, 0, 1, 1_715_932_800_123, Int64.max])
    func eventRowRoundTripsWithExactTime(_ milliseconds: Int64) throws {
        var c = StateChanges()
        c.appendTestEvent(7, time: milliseconds)
        let ids = try store.commit(c)
        let pending = try store.pending()
        #expect(pending.map(\.id) == ids && ids.count == 1)
        #expect(pending.map(\.committedMs) == [milliseconds])
        #expect(pending.map(\.topic) == ["region.enter.home"] && pending.map(\.body) == ["{\"n\":7}"])
    }

    @Test func appendedEventsGetIncreasingIdsInOrder() throws {
        var c = StateChanges()
        for i in 0..<3 { c.appendTestEvent(i) }
        let first = try store.commit(c)
        #expect(first.count == 3)
        #expect(first == first.sorted() && Set(first).count == 3)
        var d = StateChanges()
        d.put("state", key: "x", value: .null)
        d.appendTestEvent(3)
        let second = try store.commit(d)
        #expect(second.count == 1 && second[0] > first[2])
        let stored = try store.pending()
        #expect(stored.map(\.id) == first + second)
        #expect(stored.map(\.body) == (0..<4).map { "{\"n\":\($0)}" })
    }

    @Test func acknowledgeDeletesEventsThroughTheId() throws {
        var c = StateChanges()
        for i in 0..<5 { c.appendTestEvent(i) }
        let ids = try store.commit(c)
        var ack = StateChanges()
        ack.acknowledge(through: ids[1])
        #expect(try store.commit(ack).isEmpty)
        #expect(try store.pending().map(\.id) == Array(ids[2...]))
        var again = StateChanges()
        again.acknowledge(through: ids[0])  // already acknowledged: no effect
        try store.commit(again)
        #expect(try store.pending().map(\.id) == Array(ids[2...]))
        var all = StateChanges()
        all.acknowledge(through: ids[4])
        try store.commit(all)
        #expect(try store.pending().isEmpty)
        // Ids are never reused, even with the outbox empty.
        var next = StateChanges()
        next.appendTestEvent(5)
        #expect(try store.commit(next)[0] > ids[4])
    }

    @Test func appendAndAcknowledgeInOneBatchApplyInOrder() throws {
        var c = StateChanges()
        c.appendTestEvent(0)
        let first = try store.commit(c)[0]
        var d = StateChanges()
        d.acknowledge(through: first)
        d.appendTestEvent(1)  // appended after the acknowledgement: kept
        let ids = try store.commit(d)
        #expect(try store.pending().map(\.id) == ids)
    }

    @Test func emptyBatchDoesNothing() throws {
        let c = StateChanges()
        #expect(c.isEmpty)
        #expect(try store.commit(c).isEmpty)
        var d = StateChanges()
        d.setMeta("x", nil)
        #expect(!d.isEmpty)
    }

    // MARK: all or nothing

    /// State before the failing batch: one record in each of two collections, a meta value and
    /// two unacknowledged events.
    func seed() throws -> [Int64] {
        var c = StateChanges()
        c.put("state", key: "kept", value: .number(1))
        c.put("condition", key: "kept", value: .number(2))
        c.setMeta("cursor", "before")
        c.appendTestEvent(0)
        c.appendTestEvent(1)
        return try store.commit(c)
    }

    /// One of every kind of change, touching everything `seed` wrote.
    func batchTouchingEverything(acknowledging id: Int64) -> StateChanges {
        var c = StateChanges()
        c.put("state", key: "new", value: .number(3))
        c.put("state", key: "kept", value: .number(4))
        c.delete("condition", key: "kept")
        c.deleteAll(in: "state")
        c.setMeta("cursor", "after")
        c.appendTestEvent(2)
        c.acknowledge(through: id)
        return c
    }

    func expectSeedStateUnchanged(ids: [Int64]) throws {
        #expect(try store.records(in: "state").map(\.value) == [.number(1)])
        #expect(try store.records(in: "condition").map(\.value) == [.number(2)])
        #expect(try store.meta("cursor") == "before")
        #expect(try store.pending().map(\.id) == ids)
    }

    /// A failure injected before change `index` (every position, the last one included) undoes
    /// the changes already applied in SQLite.
    @Test(arguments: 0...7) func batchFailingAtAnyChangeLeavesNothingApplied(_ failingIndex: Int) throws {
        let ids = try seed()
        struct Injected: Error {}
        store.beforeApplyingChange = { if $0 == failingIndex { throw Injected() } }
        var batch = batchTouchingEverything(acknowledging: ids[1])
        batch.put("state", key: "last", value: .null)  // index 7
        #expect(throws: StateStoreError.self) { try store.commit(batch) }
        try expectSeedStateUnchanged(ids: ids)

        // The store stays usable, and the next event id follows the last committed one.
        store.beforeApplyingChange = nil
        let applied = try store.commit(batch)
        #expect(applied.count == 1 && applied[0] > ids[1])
        #expect(try keys("state") == ["last"])
        #expect(try store.meta("cursor") == "after")
        #expect(try store.pending().map(\.id) == applied)
    }

    @Test func unrepresentableNumberFailsTheWholeBatchWithAClearError() throws {
        let ids = try seed()
        var batch = batchTouchingEverything(acknowledging: ids[1])
        batch.put("state", key: "bad", value: .object(["lat": .number(.nan)]))
        let error = try #require(throws: StateStoreError.self) { try store.commit(batch) }
        #expect(error.code == .invalidValue)
        #expect(error.description.contains("state/bad") && error.description.contains("nothing of the batch was applied"))
        try expectSeedStateUnchanged(ids: ids)
    }

    @Test func emptyCollectionNameFailsTheWholeBatch() throws {
        let ids = try seed()
        var batch = batchTouchingEverything(acknowledging: ids[1])
        batch.put("", key: "k", value: .null)
        let error = try #require(throws: StateStoreError.self) { try store.commit(batch) }
        #expect(error.code == .invalidValue)
        try expectSeedStateUnchanged(ids: ids)
    }

    @Test func inMemoryStoresAreIndependentAndHaveNoPath() throws {
        let other = try ServiceStateStore.inMemory(kind: "region")
        var c = StateChanges()
        c.setMeta("only", "here")
        try store.commit(c)
        #expect(store.path == nil)
        #expect(store.kind == "region")
        #expect(try other.meta("only") == nil)
    }
}
