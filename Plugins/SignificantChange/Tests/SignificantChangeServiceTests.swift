import Foundation
import LocusCore
import LocusSignificantChangePlugin
import LocusTestKit
import Testing

private typealias S = LocationScene

@Suite struct SignificantChangeServiceTests {
    func run(_ config: SignificantChangeConfiguration = .init(), _ messages: [BusMessage]) throws -> [(seconds: Double, event: SignificantLocation)] {
        var run = ServiceRun(SignificantChangeService(id: "moves", configuration: config))
        try run.feed(messages)
        #expect(run.events.allSatisfy { $0.topic == "location.significant.moves" })
        return run.all(SignificantLocation.self)
    }

    @Test func firstUsableFixIsPublishedAtOnce() throws {
        let events = try run(.init(), [S.fix(at: 42, accuracy: 8)])
        let first = try #require(events.first)
        #expect(events.count == 1 && first.seconds == 42)
        #expect(first.event.source == "gps0" && first.event.horizontalAccuracy == 8 && first.event.altitudeMSL == 550)
        #expect(first.event.distance == nil && first.event.elapsed == nil)
        #expect(abs(first.event.latitude - S.base.latitude) < 1e-12)
    }

    @Test func bothDistanceAndIntervalAreRequired() throws {
        let events = try run(.init(), [
            S.fix(at: 0),
            S.fix(at: 100, north: 800),    // far enough, too soon
            S.fix(at: 400, north: 450),    // late enough, not far enough
            S.fix(at: 450, north: 520),    // both: published
            S.fix(at: 500, north: 1100),   // 580 m on, but only 50 s later
            S.fix(at: 760, north: 1100),   // 310 s later, 580 m on
        ])
        #expect(events.map(\.seconds) == [0, 450, 760])
        #expect(events.compactMap(\.event.elapsed) == [450, 310])
        let distances = events.compactMap(\.event.distance)
        #expect(distances.count == 2 && abs(distances[0] - 520) < 0.01 && abs(distances[1] - 580) < 0.01)
    }

    @Test func distanceCountsFromTheLastPublishedPositionNotTheLastFix() throws {
        // Creeping 110 m every 100 s: each step is small, the sum is what counts.
        let fixes = (0...12).map { S.fix(at: Double($0 * 100), north: Double($0 * 110)) }
        #expect(try run(.init(), fixes).map(\.seconds) == [0, 500, 1000])
    }

    @Test func intervalAndDistanceAreConfigurable() throws {
        let fixes = (0...12).map { S.fix(at: Double($0 * 100), north: Double($0 * 110)) }
        #expect(try run(.with { $0.minDistance = 200; $0.minInterval = 0 }, fixes).map(\.seconds) == [0, 200, 400, 600, 800, 1000, 1200])
        #expect(try run(.with { $0.minDistance = 100; $0.minInterval = 300 }, fixes).map(\.seconds) == [0, 300, 600, 900, 1200])
    }

    @Test func aBadAccuracyJumpDoesNotCountAsAMove() throws {
        let fixes = [
            S.fix(at: 0, accuracy: 5),
            S.fix(at: 400, north: 2000, accuracy: 400),  // multipath jump
            S.fix(at: 500, north: 2000, accuracy: nil),  // accuracy unknown
            S.fix(at: 800, north: 10, accuracy: 5),
        ]
        #expect(try run(.init(), fixes).map(\.seconds) == [0])
        #expect(try run(.with { $0.maxHorizontalAccuracy = 0 }, fixes).map(\.seconds) == [0, 400, 800], "0 = no limit")
        // Nor does a bad first fix become the reference.
        let late = try run(.init(), [S.fix(at: 0, north: 2000, accuracy: 300), S.fix(at: 10, accuracy: 20)])
        #expect(late.map(\.seconds) == [10])
    }

    @Test func fixesWithoutPositionOrFromOtherSourcesOrOlderAreIgnored() throws {
        let events = try run(.with { $0.sources = ["gps0"] }, [
            S.fix(at: 0, mode: .none),
            S.fix("gps01", at: 1),
            S.fix("gps0", at: 2),
            S.fix("gps0", at: 1000, north: 600),
        ])
        #expect(events.map(\.seconds) == [2, 1000])
        let older = try run(.with { $0.minInterval = 0 }, [S.fix("a", at: 10), S.fix("b", at: 5, north: 900)])
        #expect(older.map(\.event.source) == ["a"])
    }

    // MARK: state

    @Test func restartedFromItsStateAfterEveryFixItPublishesTheSame() throws {
        let make = { SignificantChangeService(id: "moves", configuration: .with { $0.minDistance = 200; $0.minInterval = 150 }) }
        let creep = (1...12).map { S.fix(at: Double($0 * 100), north: Double($0 * 110)) }
        try expectSameEventsWhenRestarted(make, [S.fix(at: 0, north: 2000, accuracy: 300), S.fix(at: 0)] + creep + [
            S.fix(at: 1300, north: 5000, accuracy: 400),
            S.fix("phone", at: 1250, north: 3000),
            S.fix(at: 1600, north: 1600, accuracy: nil),
            S.fix(at: 1700, north: 1700),
        ])
    }

    @Test func aRestartDoesNotPublishTheNextFixAsAFirstFix() throws {
        let make = { SignificantChangeService(id: "moves", configuration: .init()) }
        var driver = ServiceDriver(make())
        try driver.send(S.fix(at: 0))
        try driver.restart(make())
        #expect(try driver.send(S.fix(at: 400, north: 10)).isEmpty, "10 m from the published position")
        let moved = try driver.send(S.fix(at: 800, north: 600)).compactMap { $0.payload as? SignificantLocation }
        #expect(moved.count == 1 && moved.first?.elapsed == 800)
        #expect(moved.first.map { abs($0.distance! - 600) < 0.01 } == true)
        #expect(driver.restarts == 1)
        // What a service without the state would have done.
        var fresh = ServiceDriver(make())
        #expect(try fresh.send(S.fix(at: 400, north: 10)).count == 1)
    }

    @Test func subscriptions() {
        #expect(SignificantChangeService(id: "m", configuration: .init()).subscriptions == ["obs.fix."])
        #expect(SignificantChangeService(id: "m", configuration: .with { $0.sources = ["gps0", "phone"] }).subscriptions
                == ["obs.fix.gps0", "obs.fix.phone"])
        #expect(SignificantChangeService(id: "m", configuration: .init()).produces == ["location.significant.m"])
    }

    @Test func configurationDefaults() throws {
        let c = try decodeConfiguration(SignificantChangeConfiguration.self, "{}")
        #expect(c.minDistance == 500 && c.minInterval == 300 && c.maxHorizontalAccuracy == 100 && c.sources == [])
        let declared = Dictionary(uniqueKeysWithValues: SignificantChangeConfiguration.keys.map { ($0.name, $0.defaultValue) })
        #expect(declared == ["min_distance": "500", "min_interval": "300", "max_horizontal_accuracy": "100", "sources": "[]"])
    }

    @Test(arguments: [
        (#"{"min_distance":0}"#, "min_distance"),
        (#"{"min_distance":-5}"#, "min_distance"),
        (#"{"min_interval":-1}"#, "min_interval"),
        (#"{"max_horizontal_accuracy":-1}"#, "max_horizontal_accuracy"),
        (#"{"sources":["Phone"]}"#, "sources"),
        (#"{"sources":["a","a"]}"#, "sources"),
    ])
    func configurationRejects(json: String, key: String) {
        #expect(configErrorKey(SignificantChangeConfiguration.self, json) == key)
    }

    @Test func eventRoundTripsThroughTheCodec() throws {
        var registry = PayloadRegistry.core
        registry.register(SignificantLocation.self)
        for event in [SignificantLocation(source: "gps0", latitude: 45.77, longitude: 14.36, altitudeMSL: 550, horizontalAccuracy: 5,
                                          distance: 612.5, elapsed: 301),
                      SignificantLocation(source: "gps0", latitude: -1, longitude: -2)] {
            let body = EnvelopeCodec.encode(event, producer: "moves", seq: 1, time: S.time(0))
            #expect(try EnvelopeCodec.decode(body, registry: registry).payload.as(SignificantLocation.self) == event)
        }
    }
}
