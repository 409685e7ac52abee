import Foundation
import LocusCore
@testable import LocusRegionPlugin
import LocusRegions
import LocusTestKit
import Testing

/// The region service with one state per device (`per_device: true`, issue 16 item 3): shared
/// conditions, each device its own states, events on `region.<kind>.<id>.<device>`.
@Suite struct RegionPerDeviceTests {
    typealias Run = ServiceRun<RegionService>

    static func setup(_ dir: String? = nil, maxDevices: Int = PluginSetup.defaultMaxDevices) -> PluginSetup {
        PluginSetup(id: "fences", kind: .service, configDirectory: dir ?? "", endpoints: HubEndpoints(ingest: "", publish: "", control: ""),
                    logger: .init(label: "t"), stateDirectory: dir, perDevice: true, maxDevices: maxDevices)
    }

    static func service(_ regions: [RegionCondition] = [RegionServiceTests.circle()], dir: String? = nil,
                        maxDevices: Int = PluginSetup.defaultMaxDevices,
                        configure: (inout RegionConfiguration) -> Void = { _ in }) throws -> Run {
        ServiceRun(try RegionService(id: "fences", configuration: RegionConfiguration.with { $0.regions = regions; configure(&$0) },
                                     setup: setup(dir, maxDevices: maxDevices)))
    }

    /// Topic, time and the device named in the payload.
    static func trace(_ run: Run) -> [String] {
        run.events.map { e in
            let device = (e.payload as? RegionEnter)?.body.device ?? (e.payload as? RegionExit)?.body.device
                ?? (e.payload as? RegionDwell)?.body.device ?? "-"
            return "\(e.topic)@\(Int(e.seconds))/\(device)"
        }
    }

    @Test func eachDeviceHasItsOwnStateAgainstTheSameFence() throws {
        var run = try Self.service()
        // a comes in at 10 s and stays; b stays outside, then comes in at 60 s as a leaves.
        for t in 0..<100 {
            try run.feed(LocationScene.fix("a", at: Double(t), north: t < 10 || t >= 60 ? 400 : 20))
            try run.feed(LocationScene.fix("b", at: Double(t), north: t < 60 ? 400 : 20))
        }
        #expect(Self.trace(run) == ["region.enter.home.a@29/a", "region.exit.home.a@79/a", "region.enter.home.b@79/b"])
        #expect(run.service.monitor.record("home", device: "a")?.state == .unsatisfied)
        #expect(run.service.monitor.record("home", device: "b")?.state == .satisfied)
        #expect(run.service.monitor.deviceIDs == ["a", "b"])
    }

    /// A stream of invented device names stops at `max_devices`: further devices' fixes are
    /// dropped and counted, a device already known keeps going, an unusable fix is counted as
    /// ignored first.
    @Test func devicesPastMaxDevicesAreDroppedAndCounted() throws {
        var run = try Self.service(maxDevices: 2)
        for t in 0..<100 {
            try run.feed(LocationScene.fix("a", at: Double(t), north: t < 10 || t >= 60 ? 400 : 20))
            try run.feed(LocationScene.fix("b", at: Double(t), north: t < 60 ? 400 : 20))
            try run.feed(LocationScene.fix("intruder\(t)", at: Double(t), north: 20))
        }
        try run.feed(LocationScene.fix("late", at: 100, north: 20, accuracy: 10_000))
        #expect(Self.trace(run) == ["region.enter.home.a@29/a", "region.exit.home.a@79/a", "region.enter.home.b@79/b"])
        #expect(run.service.monitor.deviceIDs == ["a", "b"])
        #expect(run.service.counters.droppedTooManyDevices == 100)
        #expect(run.service.reportedCounters["dropped_too_many_devices"] == 100)
        #expect(run.service.reportedCounters["fixes_ignored"] == 1)
    }

    /// Any interleaving of devices gives each device exactly the events a single-device service
    /// fed only that device's fixes gives (apart from the topic's device segment and `device`).
    @Test func perDeviceEqualsOneServicePerDevice() throws {
        let fences = (0..<6).map { i in
            try! RegionCondition(id: "f\(i)", center: LocationScene.place(north: Double(i) * 150), radius: 60,
                                 dwell: i % 2 == 0 ? 15 : nil, origin: .config)
        }
        var rng = SystemRandomNumberGenerator()
        var tracks: [String: [BusMessage]] = [:]
        var all: [BusMessage] = []
        for device in ["d0", "d1", "d2", "d3"] {
            var north = Double.random(in: -100...900, using: &rng)
            var t = Double(Int.random(in: 0...20, using: &rng))
            for _ in 0..<400 {
                north += Double.random(in: -12...12, using: &rng)
                let m = LocationScene.fix(device, at: t, north: north, accuracy: Double.random(in: 3...15, using: &rng))
                tracks[device, default: []].append(m)
                all.append(m)
                t += 1
            }
        }
        // Interleave: sorted by time, ties in random order (devices' clocks are independent).
        all = all.shuffled(using: &rng).sorted { $0.time < $1.time }
        var perDevice = try Self.service(fences)
        try perDevice.feed(all)
        var total = 0
        for (device, fixes) in tracks {
            var single = RegionServiceTests.service(fences)
            try single.feed(fixes)
            let expected = single.events.map { "\($0.topic).\(device)@\($0.seconds)" }
            let got = perDevice.events.filter { $0.topic.hasSuffix("." + device) }.map { "\($0.topic)@\($0.seconds)" }
            #expect(got == expected, "\(device)")
            total += expected.count
            for id in fences.map(\.id) {
                #expect(perDevice.service.monitor.record(id, device: device)?.state == single.service.monitor.record(id)?.state)
            }
        }
        #expect(total > 4, "the tracks should cross some fences")
    }

    @Test func recordsAreSparseFarFencesAreOutsideSinceTheFirstFix() throws {
        // 2,500 fences on a 50 × 50 grid, 1 km apart: a device sees only those near it.
        var fences: [RegionCondition] = []
        for i in 0..<50 { for j in 0..<50 {
            fences.append(try RegionCondition(id: "g\(i)-\(j)", center: LocationScene.place(north: Double(i) * 1000, east: Double(j) * 1000),
                                              radius: 100, origin: .config))
        } }
        var run = try Self.service(fences)
        try run.feed(LocationScene.fix("a", at: 0, north: 30))
        #expect(Self.trace(run) == ["region.enter.g0-0.a@0/a"])
        #expect(run.service.monitor.storedRecordCount(device: "a") == 1)
        let far = try #require(run.service.monitor.record("g30-30", device: "a"))
        #expect(far.state == .unsatisfied && far.since == LocationScene.time(0))
        // A device never seen: unknown everywhere.
        #expect(run.service.monitor.record("g30-30", device: "z")?.state == .unknown)
    }

    @Test func fixTimesAreCheckedPerDevice() throws {
        var run = try Self.service()
        try run.feed(LocationScene.fix("a", at: 100, north: 20))
        // b's clock is behind a's: its fixes still count.
        try run.feed(LocationScene.fix("b", at: 50, north: 20))
        try run.feed(LocationScene.fix("a", at: 90, north: 400))   // older than a's last: ignored
        #expect(Self.trace(run) == ["region.enter.home.a@100/a", "region.enter.home.b@50/b"])
        #expect(run.service.counters.fixesIgnored == 1)
    }

    @Test func commandsApplyToEveryDevice() throws {
        var run = try Self.service()
        try run.feed(LocationScene.fix("a", at: 0, north: 1000))
        try run.feed(LocationScene.fix("b", at: 0, north: 20))
        var output = ServiceOutput()
        let add = try run.service.handle(command: "region.add", arguments: .object(RegionCommandTests.circleArgs("shop", north: 1000, radius: 50)),
                                         output: &output)
        #expect(add["devices"] == .number(2) && add["state"] == nil)
        #expect(output.events.isEmpty)
        #expect(run.service.monitor.record("shop", device: "a")?.state == .unknown)
        #expect(run.service.monitor.record("shop", device: "b")?.state == .unknown)
        try run.feed(LocationScene.fix("a", at: 1, north: 1000))
        try run.feed(LocationScene.fix("b", at: 1, north: 20))
        #expect(Self.trace(run).suffix(1) == ["region.enter.shop.a@1/a"])
        #expect(run.service.monitor.record("shop", device: "b")?.state == .unsatisfied)

        let list = try run.service.handle(command: "region.list", arguments: .object([:]), output: &output)
        #expect(list["regions"] == .array([.object(["id": "home", "origin": "config", "devices_inside": .number(1)]),
                                           .object(["id": "shop", "origin": "runtime", "devices_inside": .number(1)])]))
        let listB = try run.service.handle(command: "region.list", arguments: .object(["device": "b", "state": "satisfied"]), output: &output)
        #expect(listB["regions"] == .array([.object(["id": "home", "origin": "config", "state": "satisfied"])]))
        let record = try run.service.handle(command: "region.record", arguments: .object(["id": "shop", "device": "a"]), output: &output)
        #expect(record["state"] == .string("satisfied") && record["device"] == .string("a"))
        #expect(output.events.map(\.topic) == ["region.state.shop.a"])
        #expect((output.events[0].payload as? RegionStateSnapshot)?.body.device == "a")
        let devices = try run.service.handle(command: "region.devices", arguments: .object([:]), output: &output)
        guard case .array(let rows)? = devices["devices"], rows.count == 2 else { Issue.record("\(devices)"); return }
        #expect(rows[0]["device"] == .string("a") && rows[0]["inside"] == .array(["shop"]))
        #expect(rows[1]["device"] == .string("b") && rows[1]["inside"] == .array(["home"]))

        for (args, message) in [(["id": JSONValue.string("shop")], "give device="),
                                (["id": "shop", "device": ""], "device must be a device id")] {
            #expect(RegionCommandTests.error { _ = try run.service.handle(command: "region.record", arguments: .object(args), output: &output) }?
                .contains(message) == true)
        }
        #expect(RegionCommandTests.error { _ = try run.service.handle(command: "region.list", arguments: .object(["state": "satisfied"]), output: &output) }?
            .contains("state= needs device=") == true)

        _ = try run.service.handle(command: "region.remove", arguments: .object(["id": "shop"]), output: &output)
        #expect(run.service.monitor.storedRecordCount(device: "a") == 0)   // home is far: implied
        #expect(run.service.monitor.record("shop", device: "a") == nil)
    }

    @Test func aSingleDeviceServiceRefusesDeviceArguments() throws {
        var run = RegionServiceTests.service()
        var output = ServiceOutput()
        #expect(RegionCommandTests.error { _ = try run.service.handle(command: "region.record", arguments: .object(["id": "home", "device": "a"]), output: &output) }?
            .contains("per_device: true") == true)
        #expect(!run.service.commands.map(\.name).contains("region.devices"))
    }

    @Test func eachDevicesStateSurvivesARestart() throws {
        let home = RegionServiceTests.circle()
        var store = CommittedState()
        var first = try store.start(try Self.service([home]).service)
        for t in 0..<40 {
            try store.feed(&first, [LocationScene.fix("a", at: Double(t), north: 20), LocationScene.fix("b", at: Double(t), north: 500)])
        }
        #expect(Self.trace(first) == ["region.enter.home.a@0/a"])
        #expect(store.records.keys.filter { $0.hasPrefix("device/") }.sorted() == ["device/a", "device/b"])
        // Restart with a new fence near b (config edited while Locus was down).
        let park = try RegionCondition(id: "park", center: LocationScene.place(north: 500), radius: 80, origin: .config)
        var second = try store.restart(try Self.service([home, park]).service)
        for t in 40..<80 {
            try store.feed(&second, [LocationScene.fix("a", at: Double(t), north: t < 50 ? 20 : 400),
                                     LocationScene.fix("b", at: Double(t), north: 500)])
        }
        // a leaves home (its restored state: inside); park is new, so b starts unknown there and
        // its first fix after the restart enters it.
        #expect(Self.trace(second) == ["region.enter.park.b@40/b", "region.exit.home.a@69/a"])
        #expect(second.service.monitor.record("park", device: "a")?.state == .unsatisfied)
        #expect(second.service.monitor.storedRecordCount(device: "a") >= 1)
        let third = try store.restart(try Self.service([home, park]).service)
        #expect(third.service.monitor.record("park", device: "b")?.state == .satisfied)
        #expect(third.service.monitor.record("home", device: "a")?.state == .unsatisfied)
        #expect(third.service.monitor.lastFixTime(device: "b") == LocationScene.time(79))
    }
}
