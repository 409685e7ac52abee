import Foundation
import LocusCore
@testable import LocusRegionPlugin
import LocusRegions
import LocusTestKit
import Testing

/// Per device, a region service's devices move between servers mid-run (`DeviceStateTransfer`,
/// issue 33): their states, pending runs and fix times go with them, so the events of the two
/// servers together equal those of one that saw everything; the records each change are the
/// ones the runtime commits.
@Suite struct RegionDeviceStateTransferTests {
    static let fences = (0..<6).map { i in
        try! RegionCondition(id: "f\(i)", center: LocationScene.place(north: Double(i) * 150), radius: 60,
                             dwell: i % 2 == 0 ? 15 : nil, origin: .config)
    }

    /// Four devices wandering over the fences (hysteresis on: pending runs are in flight at the split).
    static func scene() -> [BusMessage] {
        var rng = SeededRandom(seed: 33)
        var all: [BusMessage] = []
        for device in ["d0", "d1", "d2", "d3"] {
            var north = Double.random(in: -100...900, using: &rng)
            for t in 0..<400 {
                north += Double.random(in: -12...12, using: &rng)
                all.append(LocationScene.fix(device, at: Double(t), north: north, accuracy: Double.random(in: 3...15, using: &rng)))
            }
        }
        return all.sorted { $0.time < $1.time } + LocationScene.ticks(0, 420)
    }

    static func device(_ m: BusMessage) -> String? { m.topic.hasPrefix("clock.") ? nil : String(m.topic.split(separator: ".").last!) }

    @Test func movedDevicesGoOnAsIfTheyHadNeverMoved() throws {
        let all = Self.scene().sorted { $0.time < $1.time }
        var whole = try RegionPerDeviceTests.service(Self.fences)
        try whole.feed(all)
        let moving: Set<String> = ["d1", "d3"]
        let split = LocationScene.time(200)
        var a = try RegionPerDeviceTests.service(Self.fences)
        try a.feed(all.filter { $0.time < split })
        _ = try a.service.takeStateChanges()
        let states = try a.service.deviceStates { moving.contains($0) }
        #expect(Set(states.keys) == moving)

        var b = try RegionPerDeviceTests.service(Self.fences)
        try b.service.replaceDeviceStates(where: { moving.contains($0) }, with: states)
        try a.service.replaceDeviceStates(where: { moving.contains($0) }, with: [:])
        // What the runtime commits: B writes the moved devices' records, A deletes its own.
        let written = try b.service.takeStateChanges().filter { $0.key.hasPrefix("record/") || $0.key.hasPrefix("device/") }
        #expect(!written.isEmpty && written.allSatisfy { $0.value != nil })
        #expect(Set(written.map { $0.key.hasPrefix("device/") ? String($0.key.dropFirst(7)) : String($0.key.dropFirst(7).split(separator: ".")[0]) }) == moving)
        let deleted = try a.service.takeStateChanges()
        #expect(!deleted.isEmpty && deleted.allSatisfy { $0.value == nil })
        #expect(a.service.monitor.deviceIDs == ["d0", "d2"])

        try a.feed(all.filter { $0.time >= split && Self.device($0).map { !moving.contains($0) } ?? true })
        try b.feed(all.filter { $0.time >= split && Self.device($0).map { moving.contains($0) } ?? true })
        var afterSplit = 0
        for d in ["d0", "d1", "d2", "d3"] {
            let expected = whole.events.filter { $0.topic.hasSuffix("." + d) }.map { "\($0.topic)@\($0.seconds)" }
            let got = (a.events + b.events).filter { $0.topic.hasSuffix("." + d) }.sorted { $0.seconds < $1.seconds }
                .map { "\($0.topic)@\($0.seconds)" }
            #expect(got == expected, "\(d)")
            if moving.contains(d) { afterSplit += whole.events.filter { $0.topic.hasSuffix("." + d) && $0.seconds >= 200 }.count }
        }
        #expect(afterSplit > 0, "the moved devices have something to say after the move")
    }

    /// The check can fail: a device that arrives without its state repeats its enter.
    @Test func withoutItsStateAMovedDeviceEntersAgain() throws {
        var a = try RegionPerDeviceTests.service()
        for t in 0..<40 { try a.feed(LocationScene.fix("a", at: Double(t), north: 20)) }
        #expect(RegionPerDeviceTests.trace(a) == ["region.enter.home.a@0/a"])
        var fresh = try RegionPerDeviceTests.service()
        var moved = try RegionPerDeviceTests.service()
        try moved.service.replaceDeviceStates(where: { $0 == "a" }, with: try a.service.deviceStates { $0 == "a" })
        for t in 40..<80 {
            try fresh.feed(LocationScene.fix("a", at: Double(t), north: 20))
            try moved.feed(LocationScene.fix("a", at: Double(t), north: 20))
        }
        #expect(RegionPerDeviceTests.trace(fresh) == ["region.enter.home.a@40/a"])
        #expect(RegionPerDeviceTests.trace(moved).isEmpty)
    }

    /// A state that does not read is refused before anything changes.
    @Test func aStateThatDoesNotReadChangesNothing() throws {
        var a = try RegionPerDeviceTests.service()
        for t in 0..<40 { try a.feed(LocationScene.fix("a", at: Double(t), north: 20)) }
        _ = try a.service.takeStateChanges()
        let good = try a.service.deviceStates { _ in true }
        for bad in ["{", #"{"times":{}}"#, #"{"times":{},"records":{"home":{"state":"sideways"}}}"#] {
            #expect(throws: (any Error).self) {
                try a.service.replaceDeviceStates(where: { _ in true }, with: ["a": good["a"]!, "b": Array(bad.utf8)])
            }
        }
        #expect(try a.service.deviceStates { _ in true } == good)
        #expect(try a.service.takeStateChanges().isEmpty)
    }

    /// One device without `per_device` has nothing to move.
    @Test func oneDeviceMovesNothing() throws {
        let run = RegionServiceTests.service([RegionServiceTests.circle()])
        #expect(!run.service.movesDeviceState)
    }
}
