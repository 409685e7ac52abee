import Foundation
import LocusCore
import LocusTestKit
@testable import LocusVisitsPlugin
import Testing

/// The visits service fed in memory: positions are laid out in metres from one point with
/// `Geodesic.destination`, times in seconds from `VisitsScenario.start`.
@Suite struct VisitsServiceTests {
    @Test func arrivalOnceTheStayLastsMinStay() {
        var run = VisitsScenario()
        // Ten-second fixes jittering up to 8 m around one spot for six minutes.
        for t in stride(from: 0.0, through: 360, by: 10) { run.fix(run.point(jitter(t)), at: t) }
        #expect(run.events.count == 1)
        let (time, topic, payload) = run.events[0]
        #expect(topic == "visit.arrival.visits")
        // Published by the fix that completed min_stay (300 s), carrying the first fix's time.
        #expect(time == 300)
        let arrival = payload as! VisitArrival
        #expect(arrival.arrival == VisitsScenario.time(0))
        #expect(arrival.fixes == 31)
        #expect(arrival.source == "gps0")
        #expect(Geodesic.distance(from: arrival.centre, to: run.point(0)) < 2)
        // The fixes lie within 8 m of the spot, and their 5 m accuracy is the floor.
        #expect(arrival.horizontalAccuracy >= 5 && arrival.horizontalAccuracy <= 10)
    }

    @Test func stayShorterThanMinStayIsNotAVisit() {
        var run = VisitsScenario()
        // A car at 14 m/s stops 2 min at a traffic light, 1 fix a second, then drives on.
        var x = 0.0
        for t in 0..<60 { run.fix(run.point(x), at: Double(t)); x += 14 }
        for t in 60..<180 { run.fix(run.point(x + jitter(Double(t)) / 4), at: Double(t)) }
        for t in 180..<400 { x += 14; run.fix(run.point(x), at: Double(t)) }
        #expect(run.events.isEmpty)
        // The same stop held for 6 min is a visit: the scenario can produce one.
        var held = VisitsScenario()
        for t in 0..<400 { held.fix(held.point(jitter(Double(t)) / 4), at: Double(t)) }
        #expect(held.events.map(\.topic) == ["visit.arrival.visits"])
    }

    @Test func crawlingThroughTheRadiusIsNotAVisit() {
        // 0.5 m/s in a straight line stays within 100 m of the fixes' mean for 400 s: only the
        // drift check (the two halves of the candidate 75 m apart) keeps this from being a stay.
        var run = VisitsScenario()
        for t in stride(from: 0.0, through: 1200, by: 5) { run.fix(run.point(t * 0.5), at: t) }
        #expect(run.events.isEmpty)
    }

    @Test func singleOutlierDoesNotEndAVisit() {
        var run = VisitsScenario()
        for t in stride(from: 0.0, through: 600, by: 10) { run.fix(run.point(jitter(t)), at: t) }
        run.fix(run.point(500), at: 610)                     // one fix 500 m away
        for t in stride(from: 620.0, through: 900, by: 10) { run.fix(run.point(jitter(t)), at: t) }
        // A burst of outliers lasting less than departure_confirmation (120 s) is not a departure either.
        for t in stride(from: 910.0, through: 1000, by: 10) { run.fix(run.point(300, bearing: 180), at: t) }
        for t in stride(from: 1010.0, through: 1100, by: 10) { run.fix(run.point(jitter(t)), at: t) }
        #expect(run.events.map(\.topic) == ["visit.arrival.visits"])
        // Leaving for good is: the departure carries the last fix seen inside.
        for t in stride(from: 1110.0, through: 1300, by: 10) { run.fix(run.point(1000 + t), at: t) }
        #expect(run.events.map(\.topic) == ["visit.arrival.visits", "visit.departure.visits"])
        let departure = run.events[1].payload as! VisitDeparture
        #expect(departure.departure == VisitsScenario.time(1100))
        #expect(run.events[1].time == 1230)                   // first fix outside at 1110, + 120 s
    }

    @Test func departureRepeatsTheArrival() throws {
        var run = VisitsScenario()
        for t in stride(from: 0.0, through: 900, by: 15) { run.fix(run.point(jitter(t), bearing: 30), at: t, accuracy: 12) }
        for t in stride(from: 915.0, through: 1200, by: 15) { run.fix(run.point(20 * (t - 900), bearing: 30), at: t, accuracy: 12) }
        try #require(run.events.count == 2)
        let arrival = run.events[0].payload as! VisitArrival
        let departure = run.events[1].payload as! VisitDeparture
        #expect(departure.visit == arrival)
        #expect(departure.departure == VisitsScenario.time(900))
        #expect(departure.duration == 900)
        #expect(run.events[1].topic == "visit.departure.visits")
    }

    @Test func fixesBetweenRadiusAndItsUncertaintyNeitherStayNorLeave() {
        var run = VisitsScenario()
        for t in stride(from: 0.0, through: 400, by: 10) { run.fix(run.point(0), at: t, accuracy: 5) }
        // 130 m out with 50 m accuracy: within radius + accuracy, so not seen as gone…
        for t in stride(from: 410.0, through: 800, by: 10) { run.fix(run.point(130), at: t, accuracy: 50) }
        #expect(run.events.map(\.topic) == ["visit.arrival.visits"])
        // …but the visit did not go on there: once the source is clearly away, it ended at 400.
        for t in stride(from: 810.0, through: 1000, by: 10) { run.fix(run.point(400), at: t, accuracy: 5) }
        #expect(run.events.map(\.topic) == ["visit.arrival.visits", "visit.departure.visits"])
        #expect((run.events[1].payload as! VisitDeparture).departure == VisitsScenario.time(400))
    }

    @Test func gapWithinRadiusIsPartOfTheStay() throws {
        // A logger that stops writing indoors: two fixes at the door, the next one 2 h later 30 m away.
        var run = VisitsScenario()
        run.fix(run.point(0), at: 0)
        run.fix(run.point(5), at: 60)
        #expect(run.events.isEmpty)
        run.fix(run.point(30, bearing: 200), at: 7260)
        try #require(run.events.count == 1)
        #expect(run.events[0].time == 7260)
        let arrival = run.events[0].payload as! VisitArrival
        #expect(arrival.arrival == VisitsScenario.time(0))
        #expect(arrival.fixes == 3)
        for t in stride(from: 7270.0, through: 7500, by: 10) { run.fix(run.point(2000 + t), at: t) }
        #expect((run.events.last?.payload as? VisitDeparture)?.departure == VisitsScenario.time(7260))
    }

    @Test func gapLongerThanMaxGapIsNotAStay() throws {
        var run = VisitsScenario()
        run.fix(run.point(0), at: 0)
        run.fix(run.point(5), at: 60)
        // Back at the same spot 13 h later (max_gap 12 h): no visit spanning the silence.
        let later = 13 * 3600.0
        run.fix(run.point(10), at: later)
        #expect(run.events.isEmpty)
        for t in stride(from: later + 10, through: later + 400, by: 10) { run.fix(run.point(0), at: t) }
        try #require(run.events.count == 1)
        #expect((run.events[0].payload as! VisitArrival).arrival == VisitsScenario.time(later))
    }

    @Test func silenceLongerThanMaxGapEndsAVisitAtItsLastFix() {
        // Noticed by the next fix…
        var byFix = VisitsScenario()
        for t in stride(from: 0.0, through: 600, by: 10) { byFix.fix(byFix.point(0), at: t) }
        let weeks = 21 * 86400.0
        byFix.fix(byFix.point(40), at: weeks)
        #expect(byFix.events.map(\.topic) == ["visit.arrival.visits", "visit.departure.visits"])
        #expect(byFix.events[1].time == weeks)
        #expect((byFix.events[1].payload as! VisitDeparture).departure == VisitsScenario.time(600))

        // …or by the clock, once more than max_gap (12 h) has passed.
        var byTick = VisitsScenario()
        for t in stride(from: 0.0, through: 600, by: 10) { byTick.fix(byTick.point(0), at: t) }
        byTick.tick(at: 600 + 43_200)
        #expect(byTick.events.count == 1)
        byTick.tick(at: 600 + 43_201)
        #expect(byTick.events.map(\.topic) == ["visit.arrival.visits", "visit.departure.visits"])
        #expect(byTick.events[1].time == 600 + 43_201)
        #expect((byTick.events[1].payload as! VisitDeparture).departure == VisitsScenario.time(600))
        byTick.tick(at: 600 + 50_000)
        #expect(byTick.events.count == 2)
    }

    @Test func inaccurateFixesAreIgnored() {
        var run = VisitsScenario(configuration: VisitsConfiguration.with { $0.maxAccuracy = 50 })
        for t in stride(from: 0.0, through: 600, by: 10) { run.fix(run.point(0), at: t, accuracy: 80) }
        #expect(run.events.isEmpty)
        // Fixes without an accuracy are used.
        for t in stride(from: 610.0, through: 1000, by: 10) { run.fix(run.point(0), at: t, accuracy: nil) }
        #expect(run.events.count == 1)
        #expect((run.events[0].payload as! VisitArrival).arrival == VisitsScenario.time(610))
    }

    @Test func sourcesHaveTheirOwnVisits() {
        var run = VisitsScenario(configuration: VisitsConfiguration.with { $0.sources = ["gps1"] })
        #expect(run.service.subscriptions == ["obs.fix.gps1", "clock.tick"])
        for t in stride(from: 0.0, through: 400, by: 10) {
            run.fix(run.point(0), at: t, source: "gps1")
            run.fix(run.point(0), at: t, source: "gps10")  // matches the prefix obs.fix.gps1, not the source
        }
        #expect(run.events.map { ($0.payload as! VisitArrival).source } == ["gps1"])

        var all = VisitsScenario()
        #expect(all.service.subscriptions == ["obs.fix.", "clock.tick"])
        #expect(all.service.produces == ["visit.arrival.visits", "visit.departure.visits"])
        for t in stride(from: 0.0, through: 400, by: 10) {
            all.fix(all.point(0), at: t, source: "b")
            all.fix(all.point(0), at: t + 5, source: "a")
        }
        #expect(all.events.map { ($0.payload as! VisitArrival).source } == ["b", "a"])
    }

    @Test func lateFixesAreIgnored() {
        var run = VisitsScenario()
        for t in stride(from: 0.0, through: 200, by: 10) { run.fix(run.point(0), at: t) }
        run.fix(run.point(0), at: -1000)     // older than what came before: would stretch the stay
        for t in stride(from: 210.0, through: 290, by: 10) { run.fix(run.point(0), at: t) }
        #expect(run.events.isEmpty)
        run.fix(run.point(0), at: 300)
        #expect((run.events.first?.payload as? VisitArrival)?.arrival == VisitsScenario.time(0))
    }

    @Test func stayOnTheAntimeridian() throws {
        // Fixes 22 m apart on either side of 180°: their mean must not be at 0°.
        var run = VisitsScenario()
        let east = Coordinate(latitude: -16.5, longitude: 179.9999), west = Coordinate(latitude: -16.5, longitude: -179.9999)
        for t in stride(from: 0.0, through: 360, by: 10) { run.fix(Int(t / 10) % 2 == 0 ? east : west, at: t) }
        try #require(run.events.count == 1)
        let arrival = run.events[0].payload as! VisitArrival
        #expect(Geodesic.distance(from: arrival.centre, to: east) < 15)
        #expect(Geodesic.distance(from: arrival.centre, to: west) < 15)
    }

    // MARK: state

    @Test func restartedFromItsStateAfterEveryMessageItPublishesTheSame() throws {
        typealias V = VisitsScenario
        let configuration = VisitsConfiguration.with { $0.maxGap = 1800 }
        let run = VisitsScenario(configuration: configuration)
        var gps0: [BusMessage] = [], gps1: [BusMessage] = [], ticks: [BusMessage] = []
        // gps0: a stay, an outlier, a burst away shorter than the confirmation, then it leaves.
        for t in stride(from: 0.0, through: 900, by: 10) { gps0.append(V.fix(run.point(jitter(t)), at: t)) }
        gps0.append(V.fix(run.point(500), at: 905))
        for t in stride(from: 910.0, through: 1000, by: 10) { gps0.append(V.fix(run.point(300, bearing: 180), at: t)) }
        for t in stride(from: 1010.0, through: 1300, by: 10) { gps0.append(V.fix(run.point(jitter(t) + max(0, t - 1100) * 8), at: t)) }
        // gps1: a stay at another place, fixes between the radius and its uncertainty, then silence.
        for t in stride(from: 5.0, through: 700, by: 15) { gps1.append(V.fix(run.point(2000 + jitter(t), bearing: 0), at: t, source: "gps1", accuracy: 12)) }
        gps1.append(V.fix(run.point(2105, bearing: 0), at: 710, source: "gps1", accuracy: 12))
        for t in stride(from: 0.0, through: 3000, by: 60) { ticks.append(V.tick(at: t)) }
        let messages = timeline(gps0, gps1, ticks)
        let make = { VisitsService(id: "visits", configuration: configuration) }
        let restarted = try expectSameEventsWhenRestarted(make, messages)
        // Mid-stay, the state's running sums come back from their encoding to the last bit.
        var live = ServiceDriver(make())
        try live.send(Array(messages.prefix(40)))
        let state = live.service.state
        #expect(state.trackers["gps0"]?.candidate.count ?? 0 > 10 && state.trackers["gps1"]?.candidate.count ?? 0 > 10)
        #expect(try ServiceStateCoding.decode(VisitsService.State.self, from: ServiceStateCoding.encode(state)) == state)
        #expect(restarted.events.map(\.topic) == ["visit.arrival.visits", "visit.arrival.visits", "visit.departure.visits",
                                                  "visit.departure.visits"])
    }

    @Test func aVisitInProgressAtARestartStillEndsWithItsDeparture() throws {
        let run = VisitsScenario()
        let make = { VisitsService(id: "visits", configuration: VisitsConfiguration()) }
        var driver = ServiceDriver(make())
        for t in stride(from: 0.0, through: 600, by: 10) { try driver.send(VisitsScenario.fix(run.point(jitter(t)), at: t)) }
        let arrival = try #require(driver.payloads(VisitArrival.self).first)
        try driver.restart(make())
        for t in stride(from: 610.0, through: 800, by: 10) { try driver.send(VisitsScenario.fix(run.point(1000 + t), at: t)) }
        let departure = try #require(driver.payloads(VisitDeparture.self).first)
        #expect(departure.visit == arrival)
        #expect(departure.departure == VisitsScenario.time(600))
        #expect(driver.events.map(\.topic) == ["visit.arrival.visits", "visit.departure.visits"])
    }

    @Test func eventsRoundTripThroughTheCodec() throws {
        let arrival = VisitArrival(source: "gps0", arrival: VisitsScenario.time(0.25),
                                   centre: Coordinate(latitude: 45.7712345, longitude: -179.9999999),
                                   horizontalAccuracy: 17.5, fixes: 42)
        let departure = VisitDeparture(visit: arrival, departure: VisitsScenario.time(3600.5))
        var registry = PayloadRegistry.core
        registry.register(VisitArrival.self)
        registry.register(VisitDeparture.self)
        let a = EnvelopeCodec.encode(arrival, producer: "visits", seq: 1, time: VisitsScenario.time(300))
        let d = EnvelopeCodec.encode(departure, producer: "visits", seq: 2, time: VisitsScenario.time(3700))
        #expect(try EnvelopeCodec.decode(a, registry: registry).payload.as(VisitArrival.self) == arrival)
        #expect(try EnvelopeCodec.decode(d, registry: registry).payload.as(VisitDeparture.self) == departure)
        let text = String(decoding: d, as: UTF8.self)
        #expect(text.contains(#""payload":{"source":"gps0","arrival":"2023-11-14T22:13:20.250Z","lat":45.7712345,"lon":-179.9999999,"h_accuracy":17.5,"fixes":42,"departure":"2023-11-14T23:13:20.500Z","duration":3600.25}"#))
    }
}

/// Configuration decoding and its errors.
@Suite struct VisitsConfigurationTests {
    func decode(_ json: String) throws -> VisitsConfiguration {
        try JSONDecoder().decode(VisitsConfiguration.self, from: Data(json.utf8))
    }

    @Test func defaults() throws {
        #expect(try decode("{}") == VisitsConfiguration.with { $0.radius = 100; $0.minStay = 300; $0.maxGap = 43_200; $0.departureConfirmation = 120; $0.maxAccuracy = 100; $0.sources = [] })
    }

    @Test func everyKey() throws {
        let c = try decode(#"{"radius": 150, "min_stay": 600, "max_gap": 3600, "departure_confirmation": 0, "max_accuracy": 30, "sources": ["gps0", "phone_1"]}"#)
        #expect(c == VisitsConfiguration.with { $0.radius = 150; $0.minStay = 600; $0.maxGap = 3600; $0.departureConfirmation = 0; $0.maxAccuracy = 30; $0.sources = ["gps0", "phone_1"] })
        #expect(VisitsConfiguration.keys.map(\.name) == ["radius", "min_stay", "max_gap", "departure_confirmation", "max_accuracy", "sources"])
    }

    @Test(arguments: [
        (#"{"radius": 0}"#, "radius"),
        (#"{"radius": 20000}"#, "radius"),
        (#"{"min_stay": 0}"#, "min_stay"),
        (#"{"min_stay": -60}"#, "min_stay"),
        (#"{"max_gap": 0}"#, "max_gap"),
        (#"{"departure_confirmation": -1}"#, "departure_confirmation"),
        (#"{"max_gap": 600, "departure_confirmation": 600}"#, "departure_confirmation"),
        (#"{"max_accuracy": 0}"#, "max_accuracy"),
        (#"{"sources": ["GPS 0"]}"#, "sources"),
    ])
    func invalidValuesNameTheirKey(json: String, key: String) {
        do {
            _ = try decode(json)
            Issue.record("\(json) was accepted")
        } catch let e as ConfigValueError {
            #expect(e.key == key)
            #expect(e.message.contains(key))
        } catch {
            Issue.record("expected a ConfigValueError for \(json), got \(error)")
        }
    }

    @Test func wrongTypesAreDecodingErrors() {
        #expect(throws: DecodingError.self) { try decode(#"{"radius": "far"}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"sources": "gps0"}"#) }
    }
}

/// A visits service, the messages fed to it, and what it emitted (time in seconds from `start`).
struct VisitsScenario {
    static let start: Int64 = 1_700_000_000_000
    static let origin = Coordinate(latitude: 45.7712, longitude: 14.3601)

    static func time(_ seconds: Double) -> EventTime {
        EventTime(milliseconds: start + Int64((seconds * 1000).rounded()))
    }

    var service: VisitsService
    private(set) var events: [(time: Double, topic: String, payload: any Payload)] = []

    init(configuration: VisitsConfiguration = VisitsConfiguration()) {
        service = VisitsService(id: "visits", configuration: configuration)
    }

    /// The point `metres` from the origin towards `bearing` (degrees from north).
    func point(_ metres: Double, bearing: Double = 90) -> Coordinate {
        Geodesic.destination(from: Self.origin, bearing: bearing, distance: metres)
    }

    mutating func fix(_ c: Coordinate, at seconds: Double, source: String = "gps0", accuracy: Double? = 5) {
        feed(Self.fix(c, at: seconds, source: source, accuracy: accuracy))
    }

    mutating func tick(at seconds: Double) { feed(Self.tick(at: seconds)) }

    static func fix(_ c: Coordinate, at seconds: Double, source: String = "gps0", accuracy: Double? = 5) -> BusMessage {
        let fix = Fix(source: source, mode: .threeD, latitude: c.latitude, longitude: c.longitude, horizontalAccuracy: accuracy)
        return BusMessage(topic: "obs.fix.\(source)", envelope: Envelope(producer: source, seq: 1, time: time(seconds), payload: fix))
    }

    static func tick(at seconds: Double) -> BusMessage {
        BusMessage(topic: "clock.tick", envelope: Envelope(producer: "clock", seq: 1, time: time(seconds),
                                                           payload: ClockTick(basis: .recorded, interval: 1)))
    }

    private mutating func feed(_ message: BusMessage) {
        var output = ServiceOutput()
        service.receive(message, output: &output)
        for e in output.events {
            events.append((Double(e.time.milliseconds - Self.start) / 1000, e.topic, e.payload))
        }
    }
}

/// A deterministic offset of up to 8 m east or west for time `t`, standing in for GNSS noise;
/// it cycles through its table both for fixes every second and every ten seconds.
func jitter(_ t: Double) -> Double {
    let n = Int(t.rounded())
    return [0, 3, -5, 8, -2, 6, -8, 1, 4, -6][((n / 10 + n) % 10 + 10) % 10]
}
