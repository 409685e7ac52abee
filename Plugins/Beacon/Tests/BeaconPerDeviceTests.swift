import Foundation
@testable import LocusBeaconPlugin
import LocusCore
import LocusTestKit
import Testing

/// `per_device: true`: one beacon service for many scanners (gateways of a fleet), each with its
/// own states, deadlines and ranging, events on `beacon.<kind>.<id>.<device>` naming the device.
@Suite struct BeaconPerDeviceTests {
    typealias S = BeaconScene

    static func service(_ conditions: [BeaconCondition]? = nil, maxDevices: Int = PluginSetup.defaultMaxDevices,
                        configure: (inout BeaconConfiguration) -> Void = { _ in }) throws -> BeaconService {
        let setup = PluginSetup(id: "beacons", kind: .service, configDirectory: "", endpoints: HubEndpoints(ingest: "", publish: "", control: ""),
                                logger: .init(label: "t"), perDevice: true, maxDevices: maxDevices)
        return try BeaconService(id: "beacons", configuration: try BeaconConfiguration.with {
            $0.conditions = try conditions ?? [BeaconServiceTests.wildcard()]
            $0.exitTimeout = 10
            configure(&$0)
        }, setup: setup)
    }

    /// gw1 hears the beacon from 0 to 5 s, gw2 from 3 to 20 s: two enters, two exits at each
    /// device's own deadline, each naming its device. gw2's deadline (20.5 + 10 s) is met by the
    /// tick at 31 s, not by gw3's advertisement at 30.25 s: a device's time moves on its own
    /// messages and on ticks, not on every other device's.
    static var input: [BusMessage] {
        let gw1 = (0...5).map { S.ad(S.iBeacon(), at: Double($0), source: "gw1") }
        let gw2 = (3...20).map { S.ad(S.iBeacon(minor: 7), rssi: -70, at: Double($0) + 0.5, source: "gw2") }
        // gw3 hears only a phone (no beacon): it never gets a state.
        let gw3 = (0...30).map { S.ad(nil, at: Double($0) + 0.25, source: "gw3") }
        return timeline(gw1, gw2, gw3, LocationScene.ticks(0, 40))
    }

    @Test func eachDeviceHasItsOwnStatesAndTopics() throws {
        var run = ServiceRun(try Self.service())
        try run.feed(Self.input)
        #expect(BeaconPersistenceTests.trace(run.events) == [
            "beacon.enter.site.gw1@0.0", "beacon.enter.site.gw2@3.5", "beacon.exit.site.gw1@15.0", "beacon.exit.site.gw2@31.0",
        ])
        let bodies = run.all(BeaconEnter.self).map(\.event.body) + run.all(BeaconExit.self).map(\.event.body)
        #expect(bodies.map(\.device) == ["gw1", "gw2", "gw1", "gw2"])
        #expect(run.all(BeaconEnter.self).map { $0.event.body.refinement?.minor } == [4949, 7])
        #expect(run.service.deviceIDs == ["gw1", "gw2"])
    }

    /// Past `max_devices`, a new gateway's advertisements are dropped and counted; gw3 (no
    /// beacon heard) is not a device and so not counted; gw1 keeps its events.
    @Test func devicesPastMaxDevicesAreDroppedAndCounted() throws {
        var run = ServiceRun(try Self.service(maxDevices: 1))
        try run.feed(Self.input)
        #expect(BeaconPersistenceTests.trace(run.events) == ["beacon.enter.site.gw1@0.0", "beacon.exit.site.gw1@15.0"])
        #expect(run.service.deviceIDs == ["gw1"])
        #expect(run.service.counters.droppedTooManyDevices == 18)
        #expect(run.service.reportedCounters["dropped_too_many_devices"] == 18)
    }

    /// Killed at every message: the output is that of one run, per device.
    @Test func restartedAfterEveryMessageTheOutputIsThatOfOneRun() throws {
        let ranging = [try S.condition("site", ["uuid": .string(S.charmUUID), "ranging": .bool(true)])]
        var whole = ServiceRun(try Self.service(ranging))
        try whole.feed(Self.input)
        #expect(whole.events.contains { $0.topic.hasPrefix("beacon.range.site.gw2") })
        var store = CommittedState()
        var run = try store.start(try Self.service(ranging))
        var events: [EmittedEvent] = []
        for m in Self.input {
            try store.feed(&run, [m])
            events += run.events
            run = try store.restart(try Self.service(ranging))
        }
        #expect(BeaconPersistenceTests.trace(events) == BeaconPersistenceTests.trace(whole.events))
        let ranges = { (e: [EmittedEvent]) in e.compactMap { $0.payload as? BeaconRange }.map { "\($0.device ?? "")" + $0.beacons.map { "\($0.rssi)" }.joined() } }
        #expect(ranges(events) == ranges(whole.events))
        // One record per device, and no device row for the gateway that heard no beacon.
        #expect(store.records.keys.filter { $0.hasPrefix("device/") }.sorted() == ["device/gw1", "device/gw2"])
    }

    @Test func commandsNameTheDevice() throws {
        var run = ServiceRun(try Self.service())
        try run.feed(Self.input.filter { LocationScene.seconds($0.time) < 8 })
        var out = ServiceOutput()
        let list = try run.service.handle(command: "beacon.list", arguments: [:], output: &out)
        #expect(list["conditions"] == .array([["id": "site", "origin": "config", "devices_satisfied": 2]]))
        #expect(throws: ServiceCommandError.self) { try run.service.handle(command: "beacon.record", arguments: ["id": "site"], output: &out) }
        #expect(throws: ServiceCommandError.self) { try run.service.handle(command: "beacon.record", arguments: ["id": "site", "device": "gw3"], output: &out) }
        let record = try run.service.handle(command: "beacon.record", arguments: ["id": "site", "device": "gw2"], output: &out)
        #expect(record["device"] == "gw2" && record["state"] == "satisfied")
        #expect(out.events.map(\.topic) == ["beacon.state.site.gw2"])
        let devices = try run.service.handle(command: "beacon.devices", arguments: [:], output: &out)
        #expect(devices["count"] == 2)
        // A condition added at runtime reaches every device, and devices seen later.
        _ = try run.service.handle(command: "beacon.add", arguments: ["id": "lab", "uuid": .string(S.charmUUID), "major": 3838], output: &out)
        #expect(run.service.monitor.condition("lab") != nil)
        #expect(run.service.monitor.devices.count == 2 && run.service.monitor.devices.values.allSatisfy { $0.entries["lab"] != nil })
        // device= on a one-device service is refused.
        var single = try S.service([BeaconServiceTests.wildcard()])
        #expect(throws: ServiceCommandError.self) { try single.service.handle(command: "beacon.list", arguments: ["device": "gw1"], output: &out) }
    }
}
