import Foundation
import LocusCore
import Testing
@testable import LocusStore

/// A store that existed and is now gone or emptied is refused, never silently started fresh.
/// Before: `: > region.sqlite` and a restart gave an empty store (every runtime region lost)
/// with only an info line.
@Suite struct StoreLossTests {
    func makeStore(_ dir: TemporaryDirectory) throws -> String {
        let path = dir.path + "/region.sqlite"
        let store = try ServiceStateStore(path: path, kind: "region")
        var changes = StateChanges()
        changes.put("condition", key: "home", value: .object(["radius": .number(50)]))
        try store.commit(changes)
        try store.close()
        return path
    }

    @Test func anEmptiedStoreIsRefusedAndLeftAlone() throws {
        let dir = TemporaryDirectory()
        let path = try makeStore(dir)
        #expect(FileManager.default.fileExists(atPath: path + ".created"))
        // What an operator's `: > region.sqlite` does (the WAL and shm go with a clean close).
        try Data().write(to: URL(fileURLWithPath: path))
        let error = try #require(throws: StateStoreError.self) { try ServiceStateStore(path: path, kind: "region") }
        #expect(error.code == .lost, "\(error)")
        #expect(error.description.contains("empty (0 bytes)"), "\(error)")
        #expect(error.description.contains(path + ".created"), "says which marker to delete: \(error)")
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(size == 0, "the refused file is not modified")
    }

    @Test func aMissingStoreIsRefusedAndNotRecreated() throws {
        let dir = TemporaryDirectory()
        let path = try makeStore(dir)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        let error = try #require(throws: StateStoreError.self) { try ServiceStateStore(path: path, kind: "region") }
        #expect(error.code == .lost)
        #expect(error.description.contains("is missing"), "\(error)")
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test func deletingTheMarkerStartsFreshOnPurpose() throws {
        let dir = TemporaryDirectory()
        let path = try makeStore(dir)
        try Data().write(to: URL(fileURLWithPath: path))
        try FileManager.default.removeItem(atPath: path + ".created")
        let store = try ServiceStateStore(path: path, kind: "region")
        #expect(try store.records(in: "condition").isEmpty)
        try store.close()
        // And the new store is protected in turn.
        #expect(FileManager.default.fileExists(atPath: path + ".created"))
        let mode = try FileManager.default.attributesOfItem(atPath: path + ".created")[.posixPermissions] as? Int
        #expect(mode == 0o600)
    }

    @Test func aStoreOfAnEarlierLocusGetsItsMarkerAndKeepsItsData() throws {
        let dir = TemporaryDirectory()
        let path = try makeStore(dir)
        try FileManager.default.removeItem(atPath: path + ".created")
        let store = try ServiceStateStore(path: path, kind: "region")
        #expect(try store.records(in: "condition").map(\.key) == ["home"])
        try store.close()
        #expect(FileManager.default.fileExists(atPath: path + ".created"))
    }
}
