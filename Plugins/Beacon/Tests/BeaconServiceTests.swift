import Foundation
@testable import LocusBeaconPlugin
import LocusCore
import LocusTestKit
import Testing

/// The beacon service in memory: monitoring, refinement, exit on event time, ranging.
@Suite struct BeaconServiceTests {
    typealias S = BeaconScene

    static func exact() throws -> BeaconCondition {
        try S.condition("desk", ["uuid": .string(S.charmUUID), "major": .number(3838), "minor": .number(4949), "ranging": .bool(true)])
    }

    static func wildcard() throws -> BeaconCondition { try S.condition("site", ["uuid": .string(S.charmUUID)]) }

    @Test func enterOnTheFirstMatchingAdvertisementWithTheConcreteIdentityAsRefinement() throws {
        var run = try S.service([Self.wildcard()])
        try run.feed(S.ad(S.iBeacon(major: 7, minor: 42), at: 3))
        let enters = run.all(BeaconEnter.self)
        #expect(enters.count == 1)
        let b = try #require(enters.first)
        #expect(b.seconds == 3)
        #expect(b.event.body.previousState == .unknown && b.event.body.state == .satisfied)
        #expect(b.event.body.refinement == BeaconIdentity(iBeacon: S.charmUUID, major: 7, minor: 42))
        #expect(b.event.body.source == "ble0" && b.event.body.rssi == -65)
        // More advertisements while satisfied publish nothing new.
        try run.feed(S.ad(S.iBeacon(major: 7, minor: 42), at: 4), S.ad(S.iBeacon(major: 7, minor: 43), at: 5))
        #expect(run.events.count == 1)
        #expect(run.service.monitor.record("site")?.beacons.count == 2)
    }

    @Test func exitOnTheFirstMessageAtOrAfterLastHeardPlusTheTimeout() throws {
        var run = try S.service([Self.wildcard()])
        let ads = (0...10).map { S.ad(S.iBeacon(), at: Double($0) + 0.25) }
        try S.play(&run, ads: ads, ticks: 0...60)
        let exits = run.all(BeaconExit.self)
        try #require(exits.count == 1)
        // Last heard 10.25 s: the deadline is 40.25 s, and the first tick at or after it is 41 s.
        #expect(exits[0].seconds == 41)
        #expect(exits[0].event.body.since == LocationScene.time(40.25))
        #expect(exits[0].event.body.lastHeard == LocationScene.time(10.25))
        #expect(exits[0].event.body.refinement?.minor == 4949)
        #expect(run.service.monitor.record("site")?.state == .unsatisfied)
    }

    @Test func aGapShorterThanTheTimeoutIsNoExit() throws {
        var run = try S.service([Self.wildcard()])
        let ads = [0.0, 1, 2, 31, 32].map { S.ad(S.iBeacon(), at: $0) }   // 29 s gap
        try S.play(&run, ads: ads, ticks: 0...40)
        #expect(run.events.map(\.topic) == ["beacon.enter.site"])
    }

    @Test func anAdvertisementAfterTheDeadlineExitsFirstThenEntersAgain() throws {
        var run = try S.service([Self.wildcard()])
        try run.feed(S.ad(S.iBeacon(), at: 0), S.ad(S.iBeacon(), at: 45))   // no ticks in between
        #expect(run.events.map { "\($0.topic)@\(Int($0.seconds))" } == ["beacon.enter.site@0", "beacon.exit.site@45", "beacon.enter.site@45"])
    }

    @Test func unknownBecomesUnsatisfiedSilentlyAfterTheTimeout() throws {
        var run = try S.service([Self.wildcard()])
        try S.play(&run, ads: [], ticks: 0...29)
        #expect(run.service.monitor.record("site")?.state == .unknown)
        try S.play(&run, ads: [], ticks: 30...31)
        #expect(run.service.monitor.record("site")?.state == .unsatisfied)
        #expect(run.events.isEmpty)
    }

    @Test func randomisedAddressesAreOneBeacon() throws {
        var run = try S.service([Self.exact()])
        let ads = (0..<10).map { i in S.ad(S.iBeacon(), rssi: -70, at: Double(i) * 0.5, address: String(format: "4%X:11:22:33:44:%02X", i % 16, i)) }
        try S.play(&run, ads: ads, ticks: 0...6)
        #expect(run.all(BeaconEnter.self).count == 1)
        let ranges = run.all(BeaconRange.self)
        #expect(!ranges.isEmpty)
        for r in ranges { #expect(r.event.beacons.count == 1) }
        #expect(ranges.last?.event.beacons.first?.samples == 10)
    }

    @Test func twoMajorsOfOneUUIDAreRangedNearestFirst() throws {
        let lobby = try S.condition("lobby", ["uuid": .string(S.charmUUID), "major": .number(1)])
        let lab = try S.condition("lab", ["uuid": .string(S.charmUUID), "major": .number(2)])
        let site = try S.condition("site", ["uuid": .string(S.charmUUID), "ranging": .bool(true)])
        var run = try S.service([lobby, lab, site])
        var ads: [BusMessage] = []
        for i in 0..<20 {
            let t = Double(i) * 0.5
            ads.append(S.ad(S.iBeacon(major: 1, minor: 1), rssi: S.rssi(at: 4), at: t, address: "4A:00:00:00:00:01"))
            ads.append(S.ad(S.iBeacon(major: 2, minor: 1), rssi: S.rssi(at: 1), at: t + 0.1, address: "4A:00:00:00:00:02"))
        }
        try S.play(&run, ads: ads, ticks: 0...10)
        #expect(Set(run.all(BeaconEnter.self).map(\.event.body.beacon)) == ["lobby", "lab", "site"])
        #expect(run.all(BeaconEnter.self).first { $0.event.body.beacon == "lab" }?.event.body.refinement?.major == 2)
        let last = try #require(run.all(BeaconRange.self).last?.event)
        #expect(last.beacons.map(\.identity.major) == [2, 1])
        #expect(last.beacons.map(\.proximity) == [.near, .far])
        #expect(abs(last.beacons[0].distance - 1) < 0.2 && abs(last.beacons[1].distance - 4) < 0.5)
    }

    @Test func rangingFollowsTheIntervalAndDropsBeaconsNotHeardLately() throws {
        var run = try S.service([Self.exact()], rangeInterval: 2)
        let ads = stride(from: 0.0, through: 10, by: 0.5).map { S.ad(S.iBeacon(), at: $0) }
        try S.play(&run, ads: ads, ticks: 0...20)
        let ranges = run.all(BeaconRange.self)
        // Entered at 0: ranges at 2, 4, … while satisfied (until the exit at 40 this run does not reach).
        #expect(ranges.map { Int($0.seconds) } == [2, 4, 6, 8, 10, 12, 14, 16, 18, 20])
        // Last heard at 10 s; range_timeout 5 s: listed through 14 s, empty from 16 s.
        #expect(ranges.map(\.event.beacons.count) == [1, 1, 1, 1, 1, 1, 1, 0, 0, 0])
    }

    @Test func framesWithoutIdentityAndBadInputAreCountedAndSkipped() throws {
        var run = try S.service([Self.wildcard()])
        try run.feed(
            S.ad(.init(format: "eddystone_url", url: "https://example.com"), at: 0),
            S.ad(.init(format: "ibeacon", uuid: S.charmUUID), at: 1),                     // no major/minor
            S.ad(nil, at: 2, manufacturerData: [.init(companyID: 76, data: "02zz")]),      // not hex
            S.ad(nil, at: 3, manufacturerData: [.init(companyID: 70_000, data: "0215")]),
            S.ad(S.iBeacon(), rssi: 99, at: 4),
            S.ad(nil, at: 5))
        #expect(run.events.isEmpty)
        #expect(run.service.counters.withoutIdentity == 5)
        #expect(run.service.counters.badRSSI == 1)
    }

    @Test func rawManufacturerDataIsDecodedHere() throws {
        var run = try S.service([Self.exact()])
        // ibeacon-ble-01's payload (Blue Charm, 3838/4949, -59 dBm), as a scanner that does not decode sends it.
        try run.feed(S.ad(nil, at: 0, manufacturerData: [.init(companyID: 76, data: "0215426c7565436861726d426561636f6e730efe1355c5")]))
        #expect(run.events.map(\.topic) == ["beacon.enter.desk"])
        #expect(run.service.counters.decodedHere == 1)
    }

    @Test func onlyTheConfiguredSourcesCount() throws {
        var run = try S.service([Self.wildcard()], sources: ["ble1"])
        #expect(run.service.subscriptions.contains("obs.ble.ble1") && !run.service.subscriptions.contains("obs.ble."))
        var output = ServiceOutput()
        try run.service.receive(S.ad(S.iBeacon(), at: 0, source: "ble0"), output: &output)
        #expect(output.events.isEmpty && run.service.counters.otherSources == 1)
        try run.feed(S.ad(S.iBeacon(), at: 1, source: "ble1"))
        #expect(run.events.map(\.topic) == ["beacon.enter.site"])
    }

    @Test func altBeaconPrefixesAndEddystoneInstancesMatchAsDefined() throws {
        let alt = try S.condition("alt", ["altbeacon": .string("2f234454")])
        let ns = try S.condition("ns", ["namespace": .string(S.namespace)])
        let one = try S.condition("one", ["namespace": .string(S.namespace), "instance": .string("000000000001")])
        var run = try S.service([alt, ns, one])
        try run.feed(S.ad(.init(format: "altbeacon", beaconID: "2f234454cf6d4a0fadf2f4911ba9ffa600010002", measuredPower: -59), at: 0),
                     S.ad(.init(format: "altbeacon", beaconID: "2f234455cf6d4a0fadf2f4911ba9ffa600010002", measuredPower: -59), at: 0.5),
                     S.ad(.init(format: "eddystone_uid", namespace: S.namespace, instance: "000000000002", measuredPower: -59), at: 1))
        #expect(run.events.map(\.topic) == ["beacon.enter.alt", "beacon.enter.ns"])
        try run.feed(S.ad(.init(format: "eddystone_uid", namespace: S.namespace, instance: "000000000001", measuredPower: -59), at: 2))
        #expect(run.events.map(\.topic).last == "beacon.enter.one")
    }

    @Test func eventsRoundTripThroughTheirJSON() throws {
        let body = BeaconEventBody(beacon: "site", monitor: "beacons", state: .satisfied, previousState: .unknown,
                                   refinement: BeaconIdentity(iBeacon: S.charmUUID, major: 1, minor: 2),
                                   beacons: [BeaconIdentity(iBeacon: S.charmUUID, major: 1, minor: 2)], source: "ble0", rssi: -70,
                                   lastHeard: LocationScene.time(1), since: LocationScene.time(1), properties: ["a": .number(1)])
        var w = JSONWriter()
        BeaconEnter(body).write(to: &w)
        let back = try JSONReader.read(w.bytes) { r in try BeaconEnter(from: &r) }
        #expect(back.body == body)
        let range = BeaconRange(beacon: "site", monitor: "beacons", beacons: [.init(
            identity: BeaconIdentity(eddystoneNamespace: S.namespace, instance: "000000000001"), rssi: -61.5, distance: 1.25,
            proximity: .near, measuredPower: -59, lastHeard: LocationScene.time(2), samples: 3)])
        var w2 = JSONWriter()
        range.write(to: &w2)
        #expect(try JSONReader.read(w2.bytes) { r in try BeaconRange(from: &r) } == range)
    }
}
