import Foundation
import LocusCore
import Testing
@testable import LocusStore

/// What only a file-backed store has: persistence across close and reopen, the journal
/// settings, directory creation, and refusing files that are not this service's store.
@Suite struct StoreFileTests {
    let dir = TemporaryDirectory()

    func populated(_ path: String, kind: String = "region") throws -> (ServiceStateStore, [Int64]) {
        let store = try ServiceStateStore(path: path, kind: kind)
        var c = StateChanges()
        c.put("state", key: "home", value: .object(["inside": .bool(true), "since": .number(1_715_932_800_000)]))
        c.put("condition", key: "home", value: .object(["lat": .number(45.77), "lon": .number(4.86), "radius": .number(100)]))
        c.setMeta("cursor", "2024-05-17T08:00:00.000Z")
        for n in 0..<3 {
            c.appendTestEvent(n, time: Int64(n))
        }
        return (store, try store.commit(c))
    }

    @Test func reopenAfterCloseKeepsEverything() throws {
        let path = dir.file("region.sqlite")
        let (store, ids) = try populated(path)
        let records = try store.records(in: "state"), conditions = try store.records(in: "condition")
        let events = try store.pending()
        try store.close()
        #expect(throws: StateStoreError.self, "a closed store refuses calls") { try store.meta("cursor") }

        let reopened = try ServiceStateStore(path: path, kind: "region")
        #expect(reopened.path == path)
        #expect(try reopened.records(in: "state").map(\.key) == records.map(\.key))
        #expect(try reopened.records(in: "state").map(\.value) == records.map(\.value))
        #expect(try reopened.records(in: "condition").map(\.value) == conditions.map(\.value))
        #expect(try reopened.meta("cursor") == "2024-05-17T08:00:00.000Z")
        #expect(try reopened.pending().map { "\($0)" } == events.map { "\($0)" })
        #expect(events.map(\.body) == ["{\"n\":0}", "{\"n\":1}", "{\"n\":2}"] && events.map(\.committedMs) == [0, 1, 2])
        #expect(events.map(\.id) == ids)
    }

    @Test func reopenWithoutCloseKeepsEverything() throws {
        let path = dir.file("region.sqlite")
        do { _ = try populated(path) }  // released, not closed
        #expect(try ServiceStateStore(path: path, kind: "region").meta("cursor") == "2024-05-17T08:00:00.000Z")
    }

    @Test func outboxIdsKeepIncreasingAcrossReopenEvenWhenAllAcknowledged() throws {
        let path = dir.file("region.sqlite")
        let (store, ids) = try populated(path)
        var ack = StateChanges()
        ack.acknowledge(through: ids.last!)
        try store.commit(ack)
        try store.close()

        let reopened = try ServiceStateStore(path: path, kind: "region")
        #expect(try reopened.pending().isEmpty)
        var c = StateChanges()
        c.appendTestEvent(9, topic: "t", time: 9)
        c.appendTestEvent(10, topic: "t", time: 10)
        let next = try reopened.commit(c)
        #expect(next == [ids.last! + 1, ids.last! + 2])
        try reopened.close()
        #expect(try ServiceStateStore(path: path, kind: "region").pending().map(\.id) == next)
    }

    @Test func usesWALWithSynchronousNormal() throws {
        let (store, _) = try populated(dir.file("region.sqlite"))
        #expect(try store.pragma("journal_mode") == "wal")
        #expect(try store.pragma("synchronous") == "1", "1 is NORMAL")
        #expect(FileManager.default.fileExists(atPath: dir.file("region.sqlite-wal")))
        #expect(try store.integrityCheck() == ["ok"])
    }

    @Test func createsMissingParentDirectoriesWithMode0700() throws {
        let path = dir.file("state/region/home.sqlite")
        _ = try ServiceStateStore(path: path, kind: "region")
        #expect(FileManager.default.fileExists(atPath: path))
        for created in [dir.file("state"), dir.file("state/region")] {
            let mode = try FileManager.default.attributesOfItem(atPath: created)[.posixPermissions] as? Int
            #expect(mode == 0o700, "\(created)")
        }
    }

    @Test func directoryThatIsAFileIsAClearError() throws {
        FileManager.default.createFile(atPath: dir.file("plain"), contents: Data("x".utf8))
        let path = dir.file("plain/region.sqlite")
        let error = try #require(throws: StateStoreError.self) { try ServiceStateStore(path: path, kind: "region") }
        #expect(error.code == .cannotOpen)
        #expect(error.description.contains(path) && error.description.contains("is not a directory"))
    }

    @Test func fileOfAnotherKindIsRefusedAndLeftAlone() throws {
        let path = dir.file("shared.sqlite")
        let (store, _) = try populated(path, kind: "beacon")
        try store.close()
        let error = try #require(throws: StateStoreError.self) { try ServiceStateStore(path: path, kind: "region") }
        #expect(error.code == .wrongKind)
        #expect(error.path == path)
        let message = error.description
        #expect(message.contains(path) && message.contains("\"beacon\"") && message.contains("\"region\""))
        #expect(message.contains("own state file"))
        #expect(try ServiceStateStore(path: path, kind: "beacon").meta("cursor") != nil, "the refused file is intact")
    }

    @Test(arguments: [
        Data("this is a text file, not a database\n".utf8),
        Data((0..<8192).map { UInt8(truncatingIfNeeded: $0 &* 7919 &+ 13) }),
    ])
    func garbageFileIsAClearError(_ contents: Data) throws {
        let path = dir.file("garbage.sqlite")
        FileManager.default.createFile(atPath: path, contents: contents)
        let error = try #require(throws: StateStoreError.self) { try ServiceStateStore(path: path, kind: "region") }
        #expect(error.code == .corrupt)
        #expect(error.description.contains(path) && error.description.contains("not a SQLite database"))
        #expect(error.description.contains("Move it aside"))
        #expect(FileManager.default.contents(atPath: path) == contents, "the file is left as it was")
    }

    @Test func damagedPagesAreFoundAtOpen() throws {
        let path = dir.file("damaged.sqlite")
        let (store, _) = try populated(path)
        var c = StateChanges()
        for k in 0..<200 { c.put("bulk", key: "k\(k)", value: .string(String(repeating: "v", count: 200))) }
        try store.commit(c)
        try store.close()  // checkpoints the WAL into the file and removes it

        // Keep the header page, scribble over every page after it.
        let handle = try #require(FileHandle(forUpdatingAtPath: path))
        let size = try handle.seekToEnd()
        #expect(size > 8192)
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: Int(size) - 4096))
        try handle.close()

        let error = try #require(throws: StateStoreError.self) { try ServiceStateStore(path: path, kind: "region") }
        #expect(error.code == .corrupt)
        #expect(error.description.contains(path) && error.description.contains("Move it aside"))
    }

    @Test func otherProgramsSQLiteFileIsRefused() throws {
        let path = dir.file("foreign.sqlite")
        let (store, _) = try populated(path)
        try store.executeForTesting("PRAGMA application_id = 1234")
        try store.close()
        let error = try #require(throws: StateStoreError.self) { try ServiceStateStore(path: path, kind: "region") }
        #expect(error.code == .notAStateStore)
        #expect(error.description.contains(path) && error.description.contains("not a Locus state store"))
    }

    @Test func newerSchemaIsRefused() throws {
        let path = dir.file("newer.sqlite")
        let (store, _) = try populated(path)
        try store.executeForTesting("PRAGMA user_version = \(ServiceStateStore.schemaVersion + 1)")
        try store.close()
        let error = try #require(throws: StateStoreError.self) { try ServiceStateStore(path: path, kind: "region") }
        #expect(error.code == .newerSchema)
        #expect(error.description.contains(path) && error.description.contains("newer Locus"))
    }
}
