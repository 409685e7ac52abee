import Foundation
import LocusCore
import LocusStandardPlugin
import LocusTestKit
import Testing

private typealias S = LocationScene

@Suite struct StandardServiceTests {
    func run(_ config: StandardConfiguration = .init(), _ messages: [BusMessage]) throws -> ServiceRun<StandardService> {
        var run = ServiceRun(StandardService(id: "here", configuration: config))
        try run.feed(messages)
        return run
    }

    func updates(_ run: ServiceRun<StandardService>) -> [(seconds: Double, event: LocationUpdate)] { run.all(LocationUpdate.self) }

    func statuses(_ run: ServiceRun<StandardService>) -> [(seconds: Double, event: LocationStatus)] { run.all(LocationStatus.self) }

    // MARK: configuration

    @Test func configurationDefaults() throws {
        let c = try decodeConfiguration(StandardConfiguration.self, "{}")
        #expect(c.sources == [] && c.distanceFilter == 0 && c.minInterval == 0 && c.maxInterval == 0)
        #expect(c.maxHorizontalAccuracy == 100 && c.sourceTimeout == 10 && c.unavailableAfter == 10)
        #expect(c.stationaryTime == 60 && c.stationaryRadius == 5 && c.pauseWhenStationary == false)
        // Defaults come from the declarations only: a configuration built in code has them too.
        let m = StandardConfiguration()
        #expect(m.maxHorizontalAccuracy == c.maxHorizontalAccuracy && m.stationaryTime == c.stationaryTime && m.sourceTimeout == c.sourceTimeout)
        // Every key is declared with its default, as the README and `locus plugins` show them.
        let declared = Dictionary(uniqueKeysWithValues: StandardConfiguration.keys.map { ($0.name, $0.defaultValue) })
        #expect(declared["max_horizontal_accuracy"] == "100" && declared["pause_when_stationary"] == "false")
        #expect(declared.count == 10)
    }

    @Test(arguments: [
        (#"{"distance_filter":-1}"#, "distance_filter"),
        (#"{"min_interval":-0.5}"#, "min_interval"),
        (#"{"min_interval":10,"max_interval":5}"#, "max_interval"),
        (#"{"max_horizontal_accuracy":-3}"#, "max_horizontal_accuracy"),
        (#"{"source_timeout":0}"#, "source_timeout"),
        (#"{"unavailable_after":0}"#, "unavailable_after"),
        (#"{"stationary_time":0}"#, "stationary_time"),
        (#"{"stationary_radius":-1}"#, "stationary_radius"),
        (#"{"sources":["GPS0"]}"#, "sources"),
        (#"{"sources":["gps0","gps0"]}"#, "sources"),
        (#"{"sources":[""]}"#, "sources"),
    ])
    func configurationRejects(json: String, key: String) {
        #expect(configErrorKey(StandardConfiguration.self, json) == key)
    }

    @Test func configurationAcceptsLimitsThatFit() throws {
        let c = try decodeConfiguration(StandardConfiguration.self,
                                        #"{"sources":["gps0","phone"],"min_interval":5,"max_interval":5,"max_horizontal_accuracy":0}"#)
        #expect(c.sources == ["gps0", "phone"] && c.maxInterval == 5 && c.maxHorizontalAccuracy == 0)
        #expect(configErrorKey(StandardConfiguration.self, #"{"max_interval":30}"#) == nil, "max_interval without min_interval")
    }

    @Test func subscriptionsAndTopics() {
        let all = StandardService(id: "here", configuration: .init())
        #expect(all.subscriptions == ["obs.fix.", "status.", "clock.tick"])
        #expect(all.produces == ["location.update.here", "location.paused.here", "location.resumed.here", "location.status.here"])
        let two = StandardService(id: "here", configuration: .with { $0.sources = ["gps1", "gps0"] })
        #expect(two.subscriptions == ["obs.fix.gps1", "obs.fix.gps0", "status.gps1", "status.gps0", "clock.tick"])
    }

    // MARK: updates and filters

    @Test func firstFixIsPublishedWithItsFieldsAndTime() throws {
        var fix = Fix(source: "gps0", mode: .threeD, latitude: 45.77, longitude: 14.36, altitudeMSL: 550.5, altitudeHAE: 596.25,
                      speed: 1.4, course: 359.999, heading: 12.5, quality: .dgps, satellitesUsed: 9, hdop: 0.9,
                      horizontalAccuracy: 3.5, verticalAccuracy: 6, speedAccuracy: 0.2, courseAccuracy: 4)
        let r = try run(.init(), [S.message(fix, topic: "obs.fix.gps0", producer: "replay", at: S.time(7))])
        #expect(r.events.map(\.topic) == ["location.update.here"])
        let u = try #require(updates(r).first)
        #expect(u.seconds == 7)
        #expect(u.event == LocationUpdate(source: "gps0", mode: .threeD, latitude: 45.77, longitude: 14.36, altitudeMSL: 550.5,
                                          altitudeHAE: 596.25, speed: 1.4, course: 359.999, heading: 12.5, quality: .dgps,
                                          horizontalAccuracy: 3.5, verticalAccuracy: 6, speedAccuracy: 0.2, courseAccuracy: 4,
                                          isStationary: false))
        // A course that rounds to 360 is written as 0, inside the schema's [0, 360).
        #expect(String(decoding: EnvelopeCodec.encode(u.event, producer: "here", seq: 1, time: S.time(7)), as: UTF8.self).contains(#""course":0,"#))
        fix.mode = .none
        fix.latitude = nil
        fix.longitude = nil
        #expect(try run(.init(), [S.message(fix, topic: "obs.fix.gps0", producer: "gps0", at: S.time(8))]).events.isEmpty)
    }

    @Test func distanceFilterCountsFromTheLastPublishedLocation() throws {
        // Walking north 10 m per fix: with a 25 m filter, updates at 0, 30, 60 m.
        let fixes = (0...7).map { S.fix(at: Double($0), north: Double($0) * 10) }
        let r = try run(.with { $0.distanceFilter = 25 }, fixes)
        #expect(updates(r).map(\.seconds) == [0, 3, 6])
        #expect(updates(try run(.init(), fixes)).count == 8, "0 publishes every fix")
    }

    @Test func minIntervalLimitsTheRate() throws {
        let fixes = (0...12).map { S.fix(at: Double($0), north: Double($0) * 10) }
        #expect(updates(try run(.with { $0.minInterval = 5 }, fixes)).map(\.seconds) == [0, 5, 10])
    }

    @Test func maxIntervalRepublishesWhileTheDistanceFilterHoldsBack() throws {
        // Standing still, a fix every 2 s: the distance filter alone would publish only the first.
        let fixes = (0...12).map { S.fix(at: Double($0 * 2), north: Double($0 % 2)) }
        #expect(updates(try run(.with { $0.distanceFilter = 100 }, fixes)).map(\.seconds) == [0])
        #expect(updates(try run(.with { $0.distanceFilter = 100; $0.maxInterval = 10 }, fixes)).map(\.seconds) == [0, 10, 20])
    }

    @Test func accuracyLimitKeepsWorseFixesOut() throws {
        let fixes = [S.fix(at: 0, accuracy: 150), S.fix(at: 1, accuracy: nil), S.fix(at: 2, accuracy: 100), S.fix(at: 3, accuracy: 100.5)]
        #expect(updates(try run(.init(), fixes)).map(\.seconds) == [2])
        #expect(updates(try run(.with { $0.maxHorizontalAccuracy = 20 }, fixes)).isEmpty)
        #expect(updates(try run(.with { $0.maxHorizontalAccuracy = 0 }, fixes)).map(\.seconds) == [0, 1, 2, 3], "0 = no limit")
    }

    @Test func onlyConfiguredSourcesAreUsed() throws {
        let r = try run(.with { $0.sources = ["gps0"] }, [S.fix("gps01", at: 0), S.fix("gps0", at: 1), S.fix("phone", at: 2)])
        #expect(updates(r).map(\.event.source) == ["gps0"])
    }

    // MARK: arbitration between sources

    @Test func olderFixIsIgnored() throws {
        let r = try run(.init(), [S.fix("gps0", at: 10), S.fix("gps1", at: 9, north: 200, accuracy: 1), S.fix("gps1", at: 11, north: 200, accuracy: 1)])
        #expect(updates(r).map { "\($0.event.source)@\($0.seconds)" } == ["gps0@10.0", "gps1@11.0"])
    }

    @Test func lessAccurateFixIsIgnoredWhileTheCurrentPositionIsInsideItsCircle() throws {
        let r = try run(.init(), [
            S.fix("gps0", at: 0, accuracy: 5),
            S.fix("phone", at: 1, north: 15, accuracy: 20),  // 15 m off, ±20 m: adds nothing
            S.fix("phone", at: 2, north: 19, accuracy: 20),
            S.fix("phone", at: 3, north: 60, accuracy: 20),  // 60 m off: gps0's position is outside its circle
            S.fix("gps0", at: 4, north: 61, accuracy: 5),    // more accurate and newer: back to gps0
        ])
        #expect(updates(r).map { "\($0.event.source)@\($0.seconds)" } == ["gps0@0.0", "phone@3.0", "gps0@4.0"])
    }

    @Test func sameEpochFromTwoSourcesIsPublishedOnlyWhenBetter() throws {
        let worse = try run(.init(), [S.fix("gps0", at: 0, accuracy: 3), S.fix("gps1", at: 0, north: 2, accuracy: 4)])
        #expect(updates(worse).map(\.event.source) == ["gps0"])
        let better = try run(.init(), [S.fix("gps1", at: 0, accuracy: 4), S.fix("gps0", at: 0, north: 2, accuracy: 3)])
        #expect(updates(better).map(\.event.source) == ["gps1", "gps0"])
    }

    @Test func preferenceOrderBreaksAccuracyTies() throws {
        let fixes = [S.fix("gps0", at: 0), S.fix("gps1", at: 1, north: 2), S.fix("gps0", at: 2, north: 1), S.fix("gps1", at: 3, north: 2)]
        // gps1 preferred: gps0's equally accurate fix agrees with gps1 within its circle, so it is ignored.
        let preferred = try run(.with { $0.sources = ["gps1", "gps0"] }, fixes)
        #expect(updates(preferred).map(\.event.source) == ["gps0", "gps1", "gps1"])
        // No preference: equally accurate newer fixes take turns.
        #expect(updates(try run(.init(), fixes)).map(\.event.source) == ["gps0", "gps1", "gps0", "gps1"])
    }

    @Test func silentSourceIsDroppedAndTheNextTakesOver() throws {
        // gps0 (±3 m) stops after 5 s; gps1 (±10 m, within its circle of gps0) goes on.
        let gps0 = (0...5).map { S.fix("gps0", at: Double($0), accuracy: 3) }
        let gps1 = (0...30).map { S.fix("gps1", at: Double($0), north: 4, accuracy: 10) }
        let r = try run(.with { $0.sourceTimeout = 10 }, timeline(gps0, gps1, S.ticks(0, 30)))
        let sources = updates(r).map { "\($0.event.source)@\($0.seconds)" }
        #expect(sources.prefix(7) == ["gps0@0.0", "gps0@1.0", "gps0@2.0", "gps0@3.0", "gps0@4.0", "gps0@5.0", "gps1@15.0"])
        #expect(updates(r).filter { $0.event.source == "gps1" }.map(\.seconds) == Array(15...30).map(Double.init))
        // The silence is reported once, for gps0, when the estimate is dropped.
        #expect(statuses(r).map { "\($0.event.condition.rawValue) \($0.event.active) \($0.event.source ?? "-")@\($0.seconds)" }
                == ["source_disconnected true gps0@15.0"])
        #expect(statuses(r).first?.event.reason == "no fix from gps0 for 10 s")
    }

    @Test func withoutTheTimeoutASilentBetterSourceWouldHoldTheEstimate() throws {
        // The same scene with a timeout longer than the run: gps1 never takes over. This is what
        // the timeout is for (and shows the previous test depends on it).
        let gps0 = (0...5).map { S.fix("gps0", at: Double($0), accuracy: 3) }
        let gps1 = (0...30).map { S.fix("gps1", at: Double($0), north: 4, accuracy: 10) }
        let r = try run(.with { $0.sourceTimeout = 100 }, timeline(gps0, gps1, S.ticks(0, 30)))
        #expect(updates(r).allSatisfy { $0.event.source == "gps0" })
    }

    // MARK: stationary

    @Test func stationaryAfterStayingWithinTheUncertainty() throws {
        // A fix every 10 s jittering by up to 3 m (±5 m each: radius 10 m), then a move of 100 m.
        let jitter: [Double] = [0, 3, -2, 1, 2, -3, 0]
        var fixes = jitter.enumerated().map { S.fix(at: Double($0.offset * 10), north: $0.element) }
        fixes.append(S.fix(at: 70, north: 100))
        fixes.append(S.fix(at: 80, north: 101))
        let r = try run(.with { $0.stationaryTime = 30 }, fixes)
        #expect(updates(r).map(\.event.isStationary) == [false, false, false, true, true, true, true, false, false])
        #expect(r.all(LocationPaused.self).isEmpty, "no pause unless configured")
    }

    @Test func smallClaimedAccuracyStillUsesTheStationaryRadius() throws {
        // ±0.5 m claimed, 3 m of jitter: the 5 m minimum radius keeps the device stationary.
        let fixes = (0...4).map { S.fix(at: Double($0 * 10), north: $0 % 2 == 0 ? 0 : 3, accuracy: 0.5) }
        #expect(updates(try run(.with { $0.stationaryTime = 30 }, fixes)).map(\.event.isStationary) == [false, false, false, true, true])
        #expect(updates(try run(.with { $0.stationaryTime = 30; $0.stationaryRadius = 1 }, fixes)).map(\.event.isStationary).allSatisfy { !$0 })
    }

    @Test func pausesWhileStationaryAndResumesOnMovement() throws {
        let fixes = [0, 10, 20, 30, 40, 50].map { S.fix(at: Double($0), north: Double($0 % 20) / 10) }
            + [S.fix(at: 60, north: 100), S.fix(at: 70, north: 150)]
        let r = try run(.with { $0.stationaryTime = 30; $0.pauseWhenStationary = true }, fixes)
        #expect(r.events.map { "\($0.topic.split(separator: ".")[1])@\(Int($0.seconds))" }
                == ["update@0", "update@10", "update@20", "update@30", "paused@30", "resumed@60", "update@60", "update@70"])
        let paused = try #require(r.all(LocationPaused.self).first?.event)
        #expect(paused.stationaryFor == 30 && paused.source == "gps0" && paused.horizontalAccuracy == 5)
        let resumed = try #require(r.all(LocationResumed.self).first?.event)
        #expect(resumed.pausedFor == 30)
        #expect(abs(resumed.distance - 100) < 0.01)
        #expect(updates(r).map(\.event.isStationary) == [false, false, false, true, false, false])
    }

    // MARK: diagnostics

    @Test func locationUnavailableIsPublishedOnceAndClearedByTheNextFix() throws {
        let r = try run(.with { $0.unavailableAfter = 10 }, timeline([S.fix(at: 0)], S.ticks(0, 30), [S.fix(at: 31)]))
        #expect(r.events.map { "\($0.topic)@\(Int($0.seconds))" } == [
            "location.update.here@0", "location.status.here@10", "location.status.here@10",
            "location.status.here@31", "location.status.here@31", "location.update.here@31",
        ])
        #expect(statuses(r).map { "\($0.event.condition.rawValue) \($0.event.active)" } == [
            "location_unavailable true", "source_disconnected true", "location_unavailable false", "source_disconnected false",
        ])
        #expect(statuses(r)[0].event.reason == "no fix with a position within 100 m for 10 s")
        #expect(statuses(r)[2].event.source == "gps0")
    }

    @Test func unavailableFromTheStartWhenNoFixComes() throws {
        let r = try run(.with { $0.unavailableAfter = 5 }, S.ticks(100, 120))
        #expect(statuses(r).map { "\($0.event.condition.rawValue)@\(Int($0.seconds))" } == ["location_unavailable@105"])
    }

    @Test func accuracyLimitedWhenOnlyInaccurateFixesArrive() throws {
        let bad = (1...20).map { S.fix("phone", at: Double($0), accuracy: 500) }
        let r = try run(.with { $0.sourceTimeout = 60; $0.unavailableAfter = 10 },
                        timeline([S.fix("gps0", at: 0)], bad, S.ticks(0, 25), [S.fix("gps0", at: 26)]))
        #expect(statuses(r).map { "\($0.event.condition.rawValue) \($0.event.active)@\(Int($0.seconds))" } == [
            "location_unavailable true@10", "accuracy_limited true@10",
            "accuracy_limited false@26", "location_unavailable false@26",
        ])
        #expect(statuses(r)[1].event.source == "phone")
        #expect(statuses(r)[1].event.reason == "fixes arrive but none meets max_horizontal_accuracy 100 m (latest from phone: h_accuracy 500 m)")
        #expect(updates(r).map(\.seconds) == [0, 26])
    }

    @Test func accuracyLimitedClearsWhenTheInaccurateFixesStopToo() throws {
        let bad = (1...5).map { S.fix("phone", at: Double($0), accuracy: nil) }
        let r = try run(.with { $0.sourceTimeout = 60; $0.unavailableAfter = 10 }, timeline([S.fix("gps0", at: 0)], bad, S.ticks(0, 20)))
        #expect(statuses(r).map { "\($0.event.condition.rawValue) \($0.event.active)@\(Int($0.seconds))" } == [
            "location_unavailable true@10", "accuracy_limited true@10", "accuracy_limited false@15",
        ])
        #expect(statuses(r)[1].event.reason.hasSuffix("(latest from phone: no h_accuracy)"))
    }

    @Test func reportedDisconnectionUsesEventTimeAndIsNotRepeated() throws {
        let r = try run(.init(), [
            S.fix(at: 0), S.tick(at: 1),
            S.status("gps0", .disconnected, reason: "device hung up"),
            S.tick(at: 2), S.status("gps0", .disconnected, reason: "device hung up"), S.tick(at: 3),
            S.status("console", .failed),  // not a fix source
            S.fix(at: 4),
        ])
        let s = statuses(r)
        #expect(s.map { "\($0.event.active) \($0.event.source ?? "-")@\(Int($0.seconds))" } == ["true gps0@1", "false gps0@4"])
        #expect(s.first?.event.reason == "gps0 reported disconnected: device hung up")
        #expect(s.last?.event.reason == "fix from gps0")
    }

    @Test func configuredSourceReportedDownBeforeAnyFix() throws {
        // The status arrives before any event time: it waits for the first tick.
        let r = try run(.with { $0.sources = ["gps0", "gps1"] }, [
            S.status("gps1", .noData), S.tick(at: 1), S.status("gps1", .connected), S.tick(at: 2),
        ])
        #expect(statuses(r).map { "\($0.event.active) \($0.event.source ?? "-")@\(Int($0.seconds)) \($0.event.reason)" }
                == ["true gps1@1 gps1 reported no_data", "false gps1@1 gps1 reported connected"])
    }

    @Test func statusesOfUnknownSourcesAreIgnoredWhenAllSourcesAreUsed() throws {
        let r = try run(.init(), [S.tick(at: 0), S.status("gps7", .disconnected), S.tick(at: 1)])
        #expect(statuses(r).isEmpty)
    }

    // MARK: state

    /// With the sources configured, and without (the diagnostics then watch the sources seen).
    @Test(arguments: [["gps0", "gps1"], []])
    func restartedFromItsStateAfterEveryMessageItPublishesTheSame(sources: [String]) throws {
        let configuration = StandardConfiguration.with {
            $0.sources = sources; $0.distanceFilter = 3; $0.minInterval = 2; $0.maxInterval = 20
            $0.stationaryTime = 30; $0.pauseWhenStationary = true; $0.sourceTimeout = 10; $0.unavailableAfter = 10
        }
        // gps0 (±3 m) stands still until paused, goes silent, comes back moving; gps1 (±10 m)
        // takes over while gps0 is silent, reports a disconnection, then sends inaccurate fixes.
        var gps0: [BusMessage] = (0...40).map { S.fix("gps0", at: Double($0), north: Double($0 % 3), accuracy: 3) }
        gps0 += (70...90).map { S.fix("gps0", at: Double($0), north: Double($0 - 70) * 15, accuracy: 3) }
        var gps1: [BusMessage] = (0...60).map { S.fix("gps1", at: Double($0), north: 4, accuracy: 10) }
        gps1 += (61...75).map { S.fix("gps1", at: Double($0), north: 4, accuracy: 500) }
        let first = timeline(gps0.filter { $0.time < S.time(50) }, gps1.filter { $0.time < S.time(50) }, S.ticks(0, 49))
        let then = timeline(gps0.filter { $0.time >= S.time(50) }, gps1.filter { $0.time >= S.time(50) }, S.ticks(50, 100))
        let messages = first + [S.status("gps1", .disconnected, reason: "cable"), S.status("gps1", .connected)] + then
        let restarted = try expectSameEventsWhenRestarted({ StandardService(id: "here", configuration: configuration) }, messages)
        let topics = Set(restarted.events.map { $0.topic.split(separator: ".")[1] })
        #expect(topics == ["update", "paused", "resumed", "status"], "the sequence exercises every part")
    }

    @Test func theArbiterRemembersAcrossARestart() throws {
        let make = { StandardService(id: "here", configuration: .init()) }
        var driver = ServiceDriver(make())
        try driver.send(S.fix("gps0", at: 10, accuracy: 3))
        try driver.restart(make())
        // Older than the estimate: the arbiter still knows gps0's fix at 10 s.
        #expect(try driver.send(S.fix("gps1", at: 9, north: 200, accuracy: 1)).isEmpty)
        #expect(try driver.send(S.fix("gps1", at: 11, north: 200, accuracy: 1)).map(\.topic) == ["location.update.here"])
        var fresh = ServiceDriver(make())
        #expect(try fresh.send(S.fix("gps1", at: 9, north: 200, accuracy: 1)).count == 1, "without the state it is a first fix")
    }

    @Test func theThrottleRemembersAcrossARestart() throws {
        let make = { StandardService(id: "here", configuration: .with { $0.minInterval = 10 }) }
        var driver = ServiceDriver(make())
        try driver.send(S.fix(at: 10))
        try driver.restart(make())
        // Only 5 s after the last update: held back, as without the restart.
        #expect(try driver.send(S.fix(at: 15, north: 50)).isEmpty)
        try driver.restart(make())
        #expect(try driver.send(S.fix(at: 20, north: 100)).map(\.topic) == ["location.update.here"])
        #expect(driver.events.filter { $0.payload is LocationUpdate }.map { S.seconds($0.time) } == [10, 20])
    }

    // MARK: wire

    @Test func eventsRoundTripThroughTheCodec() throws {
        var registry = PayloadRegistry.core
        for t in StandardPlugin.factory.payloadTypes { registry.register(t) }
        func roundTrip<P: Payload & Equatable>(_ p: P) throws {
            let body = EnvelopeCodec.encode(p, producer: "here", seq: 1, time: S.time(0))
            #expect(try EnvelopeCodec.decode(body, registry: registry).payload.as(P.self) == p)
        }
        try roundTrip(LocationUpdate(source: "gps0", mode: .twoD, latitude: -33.5, longitude: 151.25, speed: 2, quality: .simulated,
                                     horizontalAccuracy: 4, isStationary: true))
        try roundTrip(LocationStatus(condition: .sourceDisconnected, active: true, source: "gps0", reason: "gps0 reported stopped: finished"))
        try roundTrip(LocationStatus(condition: .locationUnavailable, active: false, reason: "usable fix from a source"))
        try roundTrip(LocationPaused(source: "gps0", latitude: 1, longitude: 2, horizontalAccuracy: nil, stationaryFor: 61.5))
        try roundTrip(LocationResumed(source: "gps0", latitude: 1, longitude: 2, horizontalAccuracy: 3, distance: 12.5, pausedFor: 600))
    }
}
