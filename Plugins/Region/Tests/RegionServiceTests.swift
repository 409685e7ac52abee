import Foundation
import LocusCore
@testable import LocusRegionPlugin
import LocusRegions
import LocusTestKit
import Testing

/// The region service fed in memory: a 100 m circle around `LocationScene.base` unless a test
/// says otherwise, fixes at 1 Hz placed in metres north of the centre, 5 m accuracy.
@Suite struct RegionServiceTests {
    static func circle(_ id: String = "home", radius: Double = 100, dwell: Double? = nil, entry: Bool = true,
                       exit: Bool = true, properties: [String: JSONValue] = [:]) -> RegionCondition {
        try! RegionCondition(id: id, center: LocationScene.base, radius: radius, notifyOnEntry: entry, notifyOnExit: exit,
                             dwell: dwell, properties: properties, origin: .config)
    }

    static func service(_ regions: [RegionCondition] = [circle()], minDuration: Double = 20) -> ServiceRun<RegionService> {
        ServiceRun(try! RegionService(id: "fences", configuration: RegionConfiguration.with { $0.regions = regions; $0.minDuration = minDuration }))
    }

    /// Topic and time of every event.
    static func trace(_ run: ServiceRun<RegionService>) -> [String] {
        run.events.map { "\($0.topic)@\(Int($0.seconds))" }
    }

    @Test func entersAndExitsAfterMinDurationOnTheNewSide() throws {
        var run = Self.service()
        for t in 0...10 { try run.feed(LocationScene.fix(at: Double(t), north: 300)) }   // outside: silent
        for t in 11...40 { try run.feed(LocationScene.fix(at: Double(t), north: 50)) }
        for t in 41...70 { try run.feed(LocationScene.fix(at: Double(t), north: 200)) }
        // The clock runs from the last fix before each run (10 s, 40 s): 20 s later the transition.
        #expect(Self.trace(run) == ["region.enter.home@30", "region.exit.home@60"])
        let enter = try #require(run.all(RegionEnter.self).first?.event.body)
        #expect(enter.previousState == .unsatisfied && enter.state == .satisfied)
        #expect(enter.since == LocationScene.time(11))
        #expect(abs(enter.distance! - 50) < 0.5)
        #expect(enter.confidence! > 0.999)
        #expect(enter.fix?.horizontalAccuracy == 5)
        #expect(!enter.detectedAfterRestart)
        let exit = try #require(run.all(RegionExit.self).first?.event.body)
        #expect(exit.previousState == .satisfied && exit.state == .unsatisfied)
        #expect(abs(exit.distance! + 100) < 0.5)
    }

    @Test func firstDecidingFixSetsTheInitialStateAtOnce() throws {
        var inside = Self.service()
        try inside.feed(LocationScene.fix(at: 0, north: 10))
        #expect(Self.trace(inside) == ["region.enter.home@0"])
        #expect(inside.all(RegionEnter.self)[0].event.body.previousState == .unknown)
        var outside = Self.service()
        try outside.feed(LocationScene.fix(at: 0, north: 500))
        #expect(outside.events.isEmpty)
        #expect(outside.service.monitor.record("home")?.state == .unsatisfied)
    }

    @Test func fixesStraddlingTheBoundaryDecideNothing() throws {
        var run = Self.service()
        var naive = 0
        var wasInside: Bool?
        // A receiver on the boundary: ±12 m of jitter, 5 m accuracy (needs 15 m to decide).
        for t in 0..<600 {
            let offset = 100 + 12 * sin(Double(t) * 1.7)
            try run.feed(LocationScene.fix(at: Double(t), north: offset))
            let inside = offset <= 100
            if let w = wasInside, w != inside { naive += 1 }
            wasInside = inside
        }
        #expect(run.events.isEmpty)
        #expect(run.service.monitor.record("home")?.state == .unknown)
        #expect(naive > 100)   // what an inside/outside test would have published
    }

    @Test func singleOutlierTwoKilometresAwayInALongStayChangesNothing() throws {
        var run = Self.service()
        for t in 0..<300 { try run.feed(LocationScene.fix(at: Double(t), north: 20)) }
        // One fix 2 km away claiming 5 m accuracy, then back.
        try run.feed(LocationScene.fix(at: 300, north: 2000, accuracy: 5))
        for t in 301..<600 { try run.feed(LocationScene.fix(at: Double(t), north: 20)) }
        #expect(Self.trace(run) == ["region.enter.home@0"])
        #expect(run.service.monitor.record("home")?.runStart == nil)
    }

    @Test func fixesWorseThanMaxAccuracyNeverChangeState() throws {
        var run = Self.service()
        for t in 0..<60 { try run.feed(LocationScene.fix(at: Double(t), north: 1000)) }
        // A minute of cell-tower fixes right at the centre with 2 km accuracy.
        for t in 60..<120 { try run.feed(LocationScene.fix(at: Double(t), north: 0, accuracy: 2000)) }
        #expect(run.events.isEmpty)
        #expect(run.service.counters.fixesIgnored == 60)
    }

    @Test func aGapDoesNotChangeStateAndTheFirstDecidingFixAfterItDoes() throws {
        var run = Self.service()
        for t in 0..<60 { try run.feed(LocationScene.fix(at: Double(t), north: 10)) }
        // An hour of ticks without fixes: nothing happens.
        try run.feed(LocationScene.ticks(60, 3660))
        #expect(Self.trace(run) == ["region.enter.home@0"])
        // Then the device is elsewhere: one exit on the first fix, none after.
        for t in 3661..<3700 { try run.feed(LocationScene.fix(at: Double(t), north: 800)) }
        #expect(Self.trace(run) == ["region.enter.home@0", "region.exit.home@3661"])
    }

    @Test func theDecidingSideCancelsAPendingRun() throws {
        var run = Self.service()
        for t in 0..<30 { try run.feed(LocationScene.fix(at: Double(t), north: 10)) }
        // 15 s outside, back inside, 15 s outside again: neither run reaches 20 s.
        for t in 30..<45 { try run.feed(LocationScene.fix(at: Double(t), north: 300)) }
        try run.feed(LocationScene.fix(at: 45, north: 10))
        for t in 46..<61 { try run.feed(LocationScene.fix(at: Double(t), north: 300)) }
        #expect(Self.trace(run) == ["region.enter.home@0"])
        // An undecided fix inside the run neither cancels nor confirms it.
        try run.feed(LocationScene.fix(at: 61, north: 100))
        for t in 62..<70 { try run.feed(LocationScene.fix(at: Double(t), north: 300)) }
        #expect(Self.trace(run) == ["region.enter.home@0", "region.exit.home@65"])
    }

    @Test func dwellOncePerStayFromFixesOrTicks() throws {
        var run = Self.service([Self.circle(dwell: 60)])
        for t in 0..<30 { try run.feed(LocationScene.fix(at: Double(t), north: 10)) }
        // The source falls silent inside; ticks carry the dwell.
        try run.feed(LocationScene.ticks(30, 200))
        #expect(Self.trace(run) == ["region.enter.home@0", "region.dwell.home@60"])
        let dwell = try #require(run.all(RegionDwell.self).first?.event.body)
        #expect(dwell.dwell == 60)
        #expect(dwell.since == LocationScene.time(0))
        // Leave after the silence (the first fix outside decides: the last fix was 171 s
        // earlier) and come back: a new stay dwells again, 60 s after its first fix inside.
        for t in 201..<260 { try run.feed(LocationScene.fix(at: Double(t), north: 500)) }
        for t in 260..<400 { try run.feed(LocationScene.fix(at: Double(t), north: 0)) }
        #expect(Self.trace(run) == ["region.enter.home@0", "region.dwell.home@60", "region.exit.home@201",
                                    "region.enter.home@279", "region.dwell.home@320"])
    }

    @Test func notifyFlagsSilenceEventsButNotStates() throws {
        var run = Self.service([Self.circle(entry: false)])
        for t in 0..<30 { try run.feed(LocationScene.fix(at: Double(t), north: 10)) }
        #expect(run.events.isEmpty)
        #expect(run.service.monitor.record("home")?.state == .satisfied)
        for t in 30..<60 { try run.feed(LocationScene.fix(at: Double(t), north: 500)) }
        // The clock runs from the last fix inside (29 s).
        #expect(Self.trace(run) == ["region.exit.home@49"])
    }

    @Test func propertiesAreEchoed() throws {
        var run = Self.service([Self.circle(properties: ["name": .string("Home"), "floor": .number(2)])])
        try run.feed(LocationScene.fix(at: 0, north: 0))
        let body = try #require(run.all(RegionEnter.self).first?.event.body)
        #expect(body.properties == ["name": .string("Home"), "floor": .number(2)])
        #expect(body.monitor == "fences" && body.region == "home")
    }

    @Test func polygonHoleIsOutside() throws {
        // A 400 m square around the base with a 100 m square hole in its middle.
        func ring(_ half: Double) -> JSONValue {
            let corners = [(-half, -half), (-half, half), (half, half), (half, -half), (-half, -half)]
            return .array(corners.map { n, e in
                let p = LocationScene.place(north: n, east: e)
                return .array([.number(p.longitude), .number(p.latitude)])
            })
        }
        let square = try RegionCondition(id: "yard", geometry: .object(["type": .string("Polygon"),
                                                                         "coordinates": .array([ring(200), ring(50)])]),
                                         origin: .config)
        var run = Self.service([square])
        for t in 0..<30 { try run.feed(LocationScene.fix(at: Double(t), north: 0)) }      // in the hole
        #expect(run.events.isEmpty)
        for t in 30..<60 { try run.feed(LocationScene.fix(at: Double(t), north: 120)) }   // in the ring
        #expect(Self.trace(run) == ["region.enter.yard@49"])
    }

    @Test func manyConditionsOnlyNearbyOnesReport() throws {
        // 2,000 circles on a 1 km grid; the device walks 3 km east along the middle row.
        var regions: [RegionCondition] = []
        for i in 0..<40 { for j in 0..<50 {
            let c = LocationScene.place(north: Double(i - 20) * 1000, east: Double(j) * 1000)
            regions.append(try RegionCondition(id: "c\(i)-\(j)", center: c, radius: 150, origin: .config))
        } }
        var run = Self.service(regions)
        for t in 0...3000 { try run.feed(LocationScene.fix(at: Double(t), east: Double(t))) }
        let trace = run.events.map { $0.topic }
        #expect(trace == ["region.enter.c20-0", "region.exit.c20-0", "region.enter.c20-1", "region.exit.c20-1",
                          "region.enter.c20-2", "region.exit.c20-2", "region.enter.c20-3"])
        #expect(run.service.monitor.active.count == 1)
    }
}
