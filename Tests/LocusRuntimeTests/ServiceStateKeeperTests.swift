import Foundation
import LocusCore
@testable import LocusRuntime
import LocusStore
import Logging
import Testing

/// The keeper's restart: what a service could not use of its committed records is deleted
/// before the first message and counted (`state_records_dropped`), never lost silently.
@Suite struct ServiceStateKeeperTests {
    /// Keeps numbers; a record that is not a number is damage: dropped, and deleted by the next commit.
    struct Numbers: KeyedStatefulService {
        var subscriptions: [String] { ["x."] }
        var produces: [String] { [] }
        var values: [String: Int] = [:]
        var dropped: [String] = []

        mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws {}

        mutating func takeStateChanges() throws -> [(key: String, value: [UInt8]?)] {
            defer { dropped = [] }
            return dropped.map { ($0, nil) }
        }

        mutating func restoreState(_ records: [String: [UInt8]]) throws {
            for (key, bytes) in records {
                if let n = Int(String(decoding: bytes, as: UTF8.self)) { values[key] = n } else { dropped.append(key) }
            }
        }
    }

    @Test func recordsARestartCannotUseAreDeletedAtOnceAndCounted() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("keeper-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try ServiceStateStore(path: dir + "/numbers.sqlite", kind: "service")
        var changes = StateChanges()
        changes.put(ServiceStateKeeper.stateCollection, key: "a", json: "1")
        changes.put(ServiceStateKeeper.stateCollection, key: "b", json: "\"two\"")
        _ = try store.commit(changes)

        let keeper = ServiceStateKeeper(id: "numbers", store: store, publisher: EventPublisher(producer: "numbers", outlet: MemoryOutlet()),
                                        journal: nil, logger: Logger(label: "t"))
        var service: any ServicePlugin = Numbers()
        try keeper.start(&service)
        #expect((service as? Numbers)?.values == ["a": 1])
        #expect(keeper.counters.reported["state_records_dropped"] == 1)
        #expect(try store.textRecords(in: ServiceStateKeeper.stateCollection) == ["a": "1"])

        // The next start finds nothing more to drop.
        let again = ServiceStateKeeper(id: "numbers", store: store, publisher: EventPublisher(producer: "numbers", outlet: MemoryOutlet()),
                                       journal: nil, logger: Logger(label: "t"))
        var fresh: any ServicePlugin = Numbers()
        try again.start(&fresh)
        #expect(again.counters.reported["state_records_dropped"] == 0)
    }
}
