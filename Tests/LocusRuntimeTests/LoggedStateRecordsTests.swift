import Foundation
import LocusCore
@testable import LocusRuntime
import LocusStore
import Logging
import Testing

/// Records a service declares as changing with nearly every message
/// (`KeyedStatefulService.loggedRecordPrefixes`, every device of a per-device service) are
/// written as one row of the state log per commit, not one row each; the rest stay rows.
@Suite struct LoggedStateRecordsTests {
    /// `device/<name>` counters, logged, and one `config` record that is not.
    struct Counters: KeyedStatefulService {
        var subscriptions: [String] { ["x."] }
        var produces: [String] { [] }
        var loggedRecordPrefixes: [String] { ["device/"] }
        var values: [String: Int] = [:]
        var changed: [String: Int?] = [:]

        mutating func receive(_ message: BusMessage, output: inout ServiceOutput) throws {}

        mutating func set(_ key: String, _ value: Int?) {
            values[key] = value
            changed[key] = .some(value)
        }

        mutating func takeStateChanges() throws -> [(key: String, value: [UInt8]?)] {
            defer { changed = [:] }
            return changed.sorted { $0.key < $1.key }.map { ($0.key, $0.value.map { Array(String($0).utf8) }) }
        }

        mutating func restoreState(_ records: [String: [UInt8]]) throws {
            for (key, bytes) in records { values[key] = Int(String(decoding: bytes, as: UTF8.self)) }
        }
    }

    static func keeper(_ store: ServiceStateStore) -> ServiceStateKeeper {
        ServiceStateKeeper(id: "counters", store: store, publisher: EventPublisher(producer: "counters", outlet: MemoryOutlet()),
                           journal: nil, logger: Logger(label: "t"))
    }

    static func change(_ service: inout any ServicePlugin, _ body: (inout Counters) -> Void) {
        var c = service as! Counters
        body(&c)
        service = c
    }

    @Test func loggedRecordsAreOneRowPerCommitAndRowsOfTheEarlierFormMoveIntoTheLog() throws {
        let dir = try ServiceStateKeeperTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try ServiceStateStore(path: dir + "/counters.sqlite", kind: "service")
        // As the previous version wrote them: every record a row.
        var earlier = StateChanges()
        earlier.put(ServiceStateKeeper.stateCollection, key: "device/a", json: "1")
        earlier.put(ServiceStateKeeper.stateCollection, key: "device/b", json: "2")
        earlier.put(ServiceStateKeeper.stateCollection, key: "config", json: "7")
        _ = try store.commit(earlier)

        let keeper = Self.keeper(store)
        var service: any ServicePlugin = Counters()
        try keeper.start(&service)
        #expect((service as? Counters)?.values == ["device/a": 1, "device/b": 2, "config": 7])
        // The start moved the device rows into the log, in one row.
        #expect(try store.textRecords(in: ServiceStateKeeper.stateCollection) == ["config": "7"])
        #expect(try store.textRecords(in: ServiceStateKeeper.stateLogCollection).count == 1)

        // Ten devices change per commit: one more log row each time, no more rows.
        for round in 1...5 {
            Self.change(&service) { c in for d in 0..<10 { c.set("device/d\(d)", round * 100 + d) } }
            try keeper.commitAndPublish(&service, events: [])
            #expect(try store.textRecords(in: ServiceStateKeeper.stateLogCollection).count == 1 + round)
            #expect(try store.textRecords(in: ServiceStateKeeper.stateCollection).count == 1)
        }
        Self.change(&service) { c in
            c.set("device/b", nil)
            c.set("device/a", 9)
            c.set("config", 8)
        }
        try keeper.commitAndPublish(&service, events: [])

        var restarted: any ServicePlugin = Counters()
        try Self.keeper(store).start(&restarted)
        var expected = ["device/a": 9, "config": 8]
        for d in 0..<10 { expected["device/d\(d)"] = 500 + d }
        #expect((restarted as? Counters)?.values == expected)
        #expect(try store.textRecords(in: ServiceStateKeeper.stateCollection) == ["config": "8"])
    }

    /// A state log row that does not read loses what the service remembered in it: counted as
    /// dropped records, with a warning that says so (not one about input positions).
    @Test func aDamagedStateLogRowIsCountedAndNamedInItsWarning() throws {
        let dir = try ServiceStateKeeperTests.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let store = try ServiceStateStore(path: dir + "/counters.sqlite", kind: "service")
        var first: any ServicePlugin = Counters()
        let earlier = Self.keeper(store)
        try earlier.start(&first)
        Self.change(&first) { c in c.set("device/a", 1) }
        try earlier.commitAndPublish(&first, events: [])
        var damage = StateChanges()
        damage.put(ServiceStateKeeper.stateLogCollection, key: "0000000000000000007", json: "[not an object")
        _ = try store.commit(damage)

        let warnings = WarningsKept()
        let keeper = ServiceStateKeeper(id: "counters", store: store, publisher: EventPublisher(producer: "counters", outlet: MemoryOutlet()),
                                        journal: nil, logger: Logger(label: "t") { _ in warnings })
        var restarted: any ServicePlugin = Counters()
        try keeper.start(&restarted)
        #expect((restarted as? Counters)?.values == ["device/a": 1])
        #expect(keeper.counters.recordsDropped == 1)
        #expect(warnings.messages.contains { $0.contains("state log rows could not be read") })
        #expect(!warnings.messages.contains { $0.contains("input positions") })
    }
}

/// Warnings logged, kept for a test to read.
private final class WarningsKept: LogHandler, @unchecked Sendable {
    /// Guards `kept`; `metadata` and `logLevel` are never set after init.
    private let lock = NSLock()
    private var kept: [String] = []
    var metadata: Logger.Metadata = [:]
    var logLevel: Logger.Level = .warning
    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }
    func log(event: LogEvent) { lock.withLock { kept.append("\(event.message)") } }
    var messages: [String] { lock.withLock { kept } }
}
