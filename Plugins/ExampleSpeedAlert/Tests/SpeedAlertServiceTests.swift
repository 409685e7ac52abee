import LocusCore
import LocusExampleSpeedAlertPlugin
import LocusTestKit
import Testing

@Suite struct SpeedAlertServiceTests {
    func run(_ speeds: [Double?], config: SpeedAlertConfiguration = .with { $0.limit = 10; $0.hysteresis = 2 }) throws -> [(Double, SpeedAlert)] {
        var service = SpeedAlertService(id: "alert", configuration: config)
        var out: [(Double, SpeedAlert)] = []
        for (i, s) in speeds.enumerated() {
            var output = ServiceOutput()
            service.receive(fixMessage(speed: s, at: Double(i)), output: &output)
            for e in output.events {
                #expect(e.topic == "example.speed_alert.alert")
                out.append((Double(e.time.milliseconds - 1_700_000_000_000) / 1000, e.payload as! SpeedAlert))
            }
        }
        return out
    }

    @Test func reportsCrossingsWithHysteresis() throws {
        let events = try run([5, 11, 9, 12, 7.9, nil, 8.5, 10.5])
        #expect(events.map(\.0) == [1, 4, 7])
        #expect(events.map(\.1.state) == [.over, .under, .over])
        #expect(events[1].1.speed == 7.9)
    }

    @Test func quietBelowTheLimitAndPerSource() throws {
        #expect(try run([1, 2, 9.99, 3]).isEmpty)
        var service = SpeedAlertService(id: "a", configuration: .with { $0.limit = 10; $0.hysteresis = 1 })
        var output = ServiceOutput()
        service.receive(fixMessage(source: "gps0", speed: 20, at: 0), output: &output)
        service.receive(fixMessage(source: "gps1", speed: 20, at: 1), output: &output)
        service.receive(fixMessage(source: "gps0", speed: 20, at: 2), output: &output)
        #expect(output.events.map { ($0.payload as! SpeedAlert).source } == ["gps0", "gps1"])
    }

    @Test func restartedFromItsStateAfterEveryFixItPublishesTheSame() throws {
        let make = { SpeedAlertService(id: "alert", configuration: .with { $0.limit = 10; $0.hysteresis = 2 }) }
        let speeds: [Double?] = [5, 11, 9, 12, 7.9, nil, 8.5, 10.5, 10.2, 7]
        let messages = speeds.enumerated().flatMap { i, speed in
            [fixMessage(source: "gps0", speed: speed, at: Double(i)), fixMessage(source: "gps1", speed: speed.map { 20 - $0 }, at: Double(i))]
        }
        try expectSameEventsWhenRestarted(make, messages)
    }

    @Test func aSourceOverTheLimitAtARestartIsNotReportedOverAgain() throws {
        let make = { SpeedAlertService(id: "alert", configuration: .with { $0.limit = 10; $0.hysteresis = 2 }) }
        var driver = ServiceDriver(make())
        try driver.send(fixMessage(speed: 12, at: 0))
        try driver.restart(make())
        #expect(try driver.send(fixMessage(speed: 11, at: 1)).isEmpty)
        #expect(try driver.send(fixMessage(speed: 7, at: 2)).map { ($0.payload as! SpeedAlert).state } == [.under])
        #expect(driver.payloads(SpeedAlert.self).map(\.state) == [.over, .under])
        var fresh = ServiceDriver(make())
        #expect(try fresh.send(fixMessage(speed: 11, at: 1)).count == 1, "without the state 11 m/s is a new 'over'")
    }

    @Test func subscribesToConfiguredSources() {
        #expect(SpeedAlertService(id: "a", configuration: .init()).subscriptions == ["obs.fix."])
        #expect(SpeedAlertService(id: "a", configuration: .with { $0.sources = ["gps1"] }).subscriptions == ["obs.fix.gps1"])
    }

    @Test func aSourceWhoseIdStartsWithAConfiguredOneIsNotWatched() {
        // The subscription `obs.fix.gps1` is a prefix: the hub also delivers `obs.fix.gps10`.
        var service = SpeedAlertService(id: "a", configuration: .with { $0.limit = 10; $0.hysteresis = 1; $0.sources = ["gps1"] })
        var output = ServiceOutput()
        service.receive(fixMessage(source: "gps10", speed: 20, at: 0), output: &output)
        #expect(output.events.isEmpty)
        service.receive(fixMessage(source: "gps1", speed: 20, at: 1), output: &output)
        #expect(output.events.count == 1)
    }

    /// The declared keys as `locus check` reads them: defaults, checks, the cross-key check.
    @Test func configurationAsLocusCheckReadsIt() throws {
        let plugins = [ExampleSpeedAlertPlugin.factory]
        func errors(_ keys: String) throws -> [String] {
            try ConfigCheck.errors("services:\n  - type: example-speed-alert\n    id: a\n" + keys, plugins: plugins)
        }
        #expect(try errors("").isEmpty)
        #expect(try errors("    limit: 0\n") == ["config.yaml:4:12: error: invalid value for 'limit' in example-speed-alert service 'a': limit must be above 0 m/s, found 0"])
        #expect(try errors("    limit: 5\n    hysteresis: 5\n").first?.contains("hysteresis must be below the limit (5 m/s), found 5") == true)
        #expect(try errors("    limit: fast\n").first?.hasPrefix("config.yaml:4:12: error:") == true)
        // Every refused key is reported, not only the first.
        #expect(try errors("    limit: -1\n    sources: 5\n").count == 2)
        #expect(ExampleSpeedAlertPlugin.factory.keys.map(\.name) == ["limit", "hysteresis", "sources"])
        #expect(ExampleSpeedAlertPlugin.factory.keys.map { $0.defaultValue ?? "required" } == ["13.9", "1", "[]"])
    }

    @Test func eventRoundTripsThroughTheCodec() throws {
        let alert = SpeedAlert(source: "gps0", state: .over, speed: 12.5, limit: 10)
        let body = EnvelopeCodec.encode(alert, producer: "a", seq: 1, time: EventTime(milliseconds: 0))
        var registry = PayloadRegistry.core
        registry.register(SpeedAlert.self)
        #expect(try EnvelopeCodec.decode(body, registry: registry).payload.as(SpeedAlert.self) == alert)
    }
}
