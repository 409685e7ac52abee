import Foundation
import LocusCore
import LocusStandardPlugin
import LocusTestKit
import LocusVisitsPlugin
import Testing

/// A per-device service's devices move between servers mid-run (`DeviceStateTransfer`, issue
/// 33): server A runs the first part of the scene, gives two of its three devices to server B
/// (their state taken from A, put into a fresh B, forgotten by A), and each goes on with its own
/// devices' messages. Per device, A's and B's events together equal those of one service that
/// saw everything.
struct PerDeviceStateTransferTests {
    typealias S = LocationScene

    func check<P: ServicePlugin>(_ make: () -> P, splitAt second: Double) throws {
        let scene = PerDeviceServiceTests.scene()
        var whole = ServiceRun(PerDeviceService(prototype: make()))
        try whole.feed(scene.all)

        let moving: Set<String> = ["van1", "van3"]
        func device(_ m: BusMessage) -> String? { m.topic.hasPrefix("clock.") ? nil : String(m.topic.split(separator: ".").last!) }
        let before = scene.all.filter { S.seconds($0.time) < second }
        let after = scene.all.filter { S.seconds($0.time) >= second }
        var a = ServiceRun(PerDeviceService(prototype: make()))
        try a.feed(before)
        _ = try a.service.takeChangedStates()  // committed by the runtime after the batch
        let states = try a.service.deviceStates { moving.contains($0) }
        #expect(Set(states.keys) == moving)
        var b = ServiceRun(PerDeviceService(prototype: make()))
        try b.service.replaceDeviceStates(where: { moving.contains($0) }, with: states)
        try a.service.replaceDeviceStates(where: { moving.contains($0) }, with: [:])
        // A reports the devices it forgot as deleted records, B the ones it took as written.
        let forgotten = try a.service.takeChangedStates()
        #expect(forgotten.map(\.device) == ["van1", "van3"] && forgotten.allSatisfy { $0.state == nil })
        let taken = try b.service.takeChangedStates()
        #expect(taken.map(\.device) == ["van1", "van3"] && taken.allSatisfy { $0.state != nil })
        try a.feed(after.filter { device($0).map { !moving.contains($0) } ?? true })
        try b.feed(after.filter { device($0).map { moving.contains($0) } ?? true })

        var eventsWithMovement = 0
        for d in ["van1", "van2", "van3"] {
            let expected = whole.events.filter { $0.topic.hasSuffix("." + d) }
            let got = (a.events + b.events).filter { $0.topic.hasSuffix("." + d) }.sorted { $0.seconds < $1.seconds }
            if moving.contains(d), expected.contains(where: { $0.seconds >= second }) { eventsWithMovement += 1 }
            #expect(got.map(\.topic) == expected.map(\.topic), "\(d)")
            #expect(got.map(\.seconds) == expected.map(\.seconds), "\(d)")
            #expect(got.map(PerDeviceServiceTests.json) == expected.map(PerDeviceServiceTests.json), "\(d): payloads differ")
        }
        #expect(eventsWithMovement >= 1, "a moved device has something to say after the move")
    }

    @Test func standardDevicesMoveWithTheirState() throws {
        try check({ StandardService(id: "here", configuration: .with { $0.distanceFilter = 10; $0.maxInterval = 120 }) }, splitAt: 450)
    }

    @Test func visitsDevicesMoveWithTheirState() throws {
        try check({ VisitsService(id: "visits", configuration: .init()) }, splitAt: 450)
    }

    /// Without the move (B starts the moved devices from nothing), the check fails: it can.
    @Test func withoutTheirStateTheMovedDevicesSayOtherThings() throws {
        let scene = PerDeviceServiceTests.scene()
        var whole = ServiceRun(PerDeviceService(prototype: VisitsService(id: "visits", configuration: .init())))
        try whole.feed(scene.all)
        var b = ServiceRun(PerDeviceService(prototype: VisitsService(id: "visits", configuration: .init())))
        try b.feed(scene.all.filter { S.seconds($0.time) >= 450 })
        let expected = whole.events.filter { $0.topic.hasSuffix(".van3") && $0.seconds >= 450 }
        let got = b.events.filter { $0.topic.hasSuffix(".van3") }
        #expect(got.map(PerDeviceServiceTests.json) != expected.map(PerDeviceServiceTests.json))
    }

    /// A state that does not decode is refused, and nothing changed.
    @Test func aStateThatDoesNotDecodeChangesNothing() throws {
        let scene = PerDeviceServiceTests.scene()
        var a = ServiceRun(PerDeviceService(prototype: VisitsService(id: "visits", configuration: .init())))
        try a.feed(scene.all.filter { S.seconds($0.time) < 300 })
        _ = try a.service.takeChangedStates()
        let before = try a.service.deviceStates { _ in true }
        #expect(throws: (any Error).self) {
            try a.service.replaceDeviceStates(where: { $0 == "van1" || $0 == "van2" },
                                              with: ["van1": before["van1"]!, "van2": Array("{\"nonsense\":".utf8)])
        }
        #expect(try a.service.deviceStates { _ in true } == before)
        #expect(try a.service.takeChangedStates().isEmpty)
    }
}
