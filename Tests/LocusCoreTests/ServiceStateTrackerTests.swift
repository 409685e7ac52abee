import LocusCore
import Testing

/// What the runtime commits of a service's state (`ServiceStateTracker`), whole or per device.
struct ServiceStateTrackerTests {
    /// Counts fixes per source; a tick changes nothing.
    struct Counter: StatefulService {
        var state: [String: Int] = [:]
        var subscriptions: [String] { ["obs.fix.", "clock.tick"] }
        var produces: [String] { ["test.count"] }
        mutating func receive(_ message: BusMessage, output: inout ServiceOutput) {
            guard let fix = message.payload(Fix.self) else { return }
            state[fix.source, default: 0] += 1
        }
    }

    func fix(_ device: String, at ms: Int64 = 1000) -> BusMessage {
        BusMessage(topic: "obs.fix.\(device)", envelope: Envelope(producer: "mqtt", seq: 1, time: EventTime(milliseconds: ms),
                                                                  payload: Fix(source: device, mode: .threeD, latitude: 1, longitude: 2)))
    }

    func tick(at ms: Int64 = 2000) -> BusMessage {
        BusMessage(topic: "clock.tick", envelope: Envelope(producer: "clock", seq: 1, time: EventTime(milliseconds: ms),
                                                           payload: ClockTick(basis: .wall, interval: 1)))
    }

    @Test func aWholeStateIsOneRecordCommittedOnlyWhenItChanged() throws {
        var service: any ServicePlugin = Counter()
        var tracker = try #require(ServiceStateTracker(for: service))
        var out = ServiceOutput()
        try service.receive(tick(), output: &out)
        #expect(try tracker.changes(in: &service).isEmpty, "a tick changed nothing: nothing to commit")
        try service.receive(fix("van1"), output: &out)
        let changes = try tracker.changes(in: &service)
        #expect(changes.map(\.key) == [ServiceStateTracker.serviceKey])
        #expect(try tracker.changes(in: &service).isEmpty, "committed: nothing new")

        var fresh: any ServicePlugin = Counter()
        var restored = try #require(ServiceStateTracker(for: fresh))
        try restored.restore(Dictionary(uniqueKeysWithValues: changes.map { ($0.key, $0.value!) }), into: &fresh)
        #expect((fresh as? Counter)?.state == ["van1": 1])
        #expect(try restored.changes(in: &fresh).isEmpty, "the restored state is the committed one")
    }

    @Test func perDeviceCommitsOnlyTheDevicesABatchChanged() throws {
        var service: any ServicePlugin = PerDeviceService(prototype: Counter())
        var tracker = try #require(ServiceStateTracker(for: service))
        var out = ServiceOutput()
        for device in ["van1", "van2", "van3"] { try service.receive(fix(device), output: &out) }
        #expect(try tracker.changes(in: &service).map(\.key) == ["device/van1", "device/van2", "device/van3"])
        try service.receive(fix("van2", at: 3000), output: &out)
        try service.receive(tick(), output: &out)
        let second = try tracker.changes(in: &service)
        #expect(second.map(\.key) == ["device/van2"], "the tick reached every device but changed none")

        var fresh: any ServicePlugin = PerDeviceService(prototype: Counter())
        var restored = try #require(ServiceStateTracker(for: fresh))
        try restored.restore(["device/van1": Array(#"{"van1":1}"#.utf8), "device/van2": Array(#"{"van2":2}"#.utf8)], into: &fresh)
        try fresh.receive(fix("van2", at: 4000), output: &out)
        let after = try restored.changes(in: &fresh)
        #expect(after.map(\.key) == ["device/van2"])
        #expect(after.first.map { String(decoding: $0.value ?? [], as: UTF8.self) } == #"{"van2":3}"#)
    }

    @Test func aDamagedStateIsAnErrorNotATrap() throws {
        var fresh: any ServicePlugin = Counter()
        var tracker = try #require(ServiceStateTracker(for: fresh))
        for bad in ["", "{", "[1,2]", #"{"van1":"x"}"#, "\u{0}\u{ff}"] {
            #expect(throws: ServiceStateError.self) {
                try tracker.restore([ServiceStateTracker.serviceKey: Array(bad.utf8)], into: &fresh)
            }
        }
    }

    /// A keyed service holding its storage in one box: whether `takeStateChanges` could change
    /// it in place, with no second owner (a fleet's device table is copied whole otherwise).
    struct Boxed: KeyedStatefulService {
        final class Storage { var changed = ["a"] }
        var storage = Storage()
        var ownedAlone: [Bool] = []
        var subscriptions: [String] { ["x."] }
        var produces: [String] { [] }
        mutating func receive(_ message: BusMessage, output: inout ServiceOutput) {}
        mutating func takeStateChanges() throws -> [(key: String, value: [UInt8]?)] {
            ownedAlone.append(isKnownUniquelyReferenced(&storage))
            defer { storage.changed = [] }
            return storage.changed.map { ($0, Array("1".utf8)) }
        }
        mutating func restoreState(_ records: [String: [UInt8]]) throws {}
    }

    @Test func aKeyedServiceTakesItsChangesWithNoSecondOwnerOfItsStorage() throws {
        var service: any ServicePlugin = Boxed()
        var tracker = try #require(ServiceStateTracker(for: service))
        #expect(try tracker.changes(in: &service).map(\.key) == ["a"])
        #expect(try tracker.changes(in: &service).isEmpty)
        #expect((service as? Boxed)?.ownedAlone == [true, true])
    }

    @Test func aServiceWithoutStateHasNoTracker() {
        struct Plain: ServicePlugin {
            var subscriptions: [String] { [] }
            var produces: [String] { [] }
            mutating func receive(_ message: BusMessage, output: inout ServiceOutput) {}
        }
        #expect(ServiceStateTracker(for: Plain()) == nil)
        #expect(ServiceStateTracker(for: PerDeviceService(prototype: Plain())) == nil)
    }
}
