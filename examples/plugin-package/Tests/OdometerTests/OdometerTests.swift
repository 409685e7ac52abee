import Foundation
import LocusCore
import LocusTestKit
import Odometer
import Testing

@Suite("odometer")
struct OdometerTests {
    static func walkNorth(steps: Int, degrees: Double, accuracy: Double = 5) -> [BusMessage] {
        (0...steps).map { TestMessages.fix(latitude: 45.0 + Double($0) * degrees, longitude: 14.0, horizontalAccuracy: accuracy, at: Double($0)) }
    }

    /// 0.001° of latitude is about 111 m: eleven steps north pass 1,000 m once.
    @Test func aReadingEveryKilometre() throws {
        var driver = ServiceDriver(OdometerService(id: "trip", configuration: OdometerConfiguration()))
        try driver.send(Self.walkNorth(steps: 11, degrees: 0.001))
        let readings = driver.payloads(OdometerReading.self)
        #expect(readings.count == 1)
        #expect(readings.first.map { (1000...1112).contains($0.distance) } == true, "\(readings)")
        #expect(readings.first?.fixes == 10)
        #expect(driver.events.map(\.topic) == ["example.odometer.trip"])
    }

    @Test func jitterAndInaccurateFixesAddNothing() throws {
        var driver = ServiceDriver(OdometerService(id: "trip", configuration: OdometerConfiguration.with { $0.every = 1 }))
        // 1.1 m back and forth, under min_step (5 m).
        try driver.send((0..<100).map { TestMessages.fix(latitude: 45.0 + Double($0 % 2) * 0.00001, longitude: 14.0, at: Double($0)) })
        // 111 km away, but ±500 m.
        try driver.send(TestMessages.fix(latitude: 46.0, longitude: 14.0, horizontalAccuracy: 500, at: 100))
        #expect(driver.events.isEmpty)
    }

    /// A gap in the fixes passes several milestones in one step: one reading, then the next at
    /// the next milestone.
    @Test func oneLongStepPassesSeveralMilestones() throws {
        var driver = ServiceDriver(OdometerService(id: "trip", configuration: OdometerConfiguration.with { $0.every = 500 }))
        try driver.send(Self.walkNorth(steps: 1, degrees: 0.01)) // ~1,112 m in one step
        #expect(driver.payloads(OdometerReading.self).map(\.fixes) == [2])
        try driver.send(TestMessages.fix(latitude: 45.0135, longitude: 14.0, at: 2)) // to ~1,501 m
        #expect(driver.payloads(OdometerReading.self).map(\.fixes) == [2, 3])
    }

    /// Restarted from its committed state after every fix (a fresh instance each time, as
    /// after a `kill -9`), the odometer gives the same readings as one that ran throughout.
    @Test func restartedAfterEveryFixItReadsTheSame() throws {
        let make = { OdometerService(id: "trip", configuration: OdometerConfiguration.with { $0.every = 300 }) }
        let walk = Self.walkNorth(steps: 30, degrees: 0.0005)
            + (31...40).map { TestMessages.fix(source: "phone", latitude: 45.0 + Double($0) * 0.001, longitude: 14.0, at: Double($0)) }
        var plain = ServiceDriver(make())
        try plain.send(walk)
        var restarted = ServiceDriver(make(), restartingWith: make)
        try restarted.send(walk)
        #expect(plain.payloads(OdometerReading.self).count >= 5)
        #expect(restarted.payloads(OdometerReading.self) == plain.payloads(OdometerReading.self))
        #expect(restarted.events.map(\.topic) == plain.events.map(\.topic) && restarted.events.map(\.time) == plain.events.map(\.time))
        #expect(restarted.restarts == walk.count)
        #expect(try restarted.committedState()?["gps0"] != nil)
    }

    /// After a restart the count goes on from where it was: 600 m before, 600 m after, one
    /// reading at 1,000 m, where a fresh odometer would have counted only 600 m.
    @Test func theDistanceSurvivesARestart() throws {
        let make = { OdometerService(id: "trip", configuration: OdometerConfiguration()) }
        let walk = Self.walkNorth(steps: 12, degrees: 0.0009) // 100 m a step
        var driver = ServiceDriver(make())
        try driver.send(Array(walk[0...6]))
        #expect(driver.events.isEmpty)
        try driver.restart(make())
        try driver.send(Array(walk[7...]))
        #expect(driver.payloads(OdometerReading.self).map(\.fixes) == [11])
    }

    /// The keys as `locus check` reads them: defaults, and refusals with file:line:column.
    @Test func configurationKeys() throws {
        let ok = try ConfigCheck.errors("services:\n  - type: odometer\n    id: trip\n", plugins: [OdometerPlugin.factory])
        #expect(ok.isEmpty)
        let zero = try ConfigCheck.errors("services:\n  - type: odometer\n    id: trip\n    every: 0\n", plugins: [OdometerPlugin.factory])
        #expect(zero.count == 1 && zero[0].hasPrefix("config.yaml:4:") && zero[0].contains("every must be above 0, found 0"), "\(zero)")
        let typo = try ConfigCheck.errors("services:\n  - type: odometer\n    id: trip\n    evry: 10\n", plugins: [OdometerPlugin.factory])
        #expect(typo.count == 1 && typo[0].contains("did you mean 'every'"), "\(typo)")
    }

    /// The golden case: the real walk through `locus replay`'s pipeline gives `expected.jsonl`.
    @Test func theWalkGivesTheExpectedReadings() throws {
        let directory = try #require(Bundle.module.resourceURL?.appendingPathComponent("Golden/odometer-walk").path)
        let d = try GoldenCase(directory: directory).difference(plugins: [OdometerPlugin.factory])
        #expect(d == nil, "\(d ?? "")")
    }
}
