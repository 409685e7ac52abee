import Foundation
import LocusCore
import LocusStandardPlugin
import LocusTestKit
import LocusVisitsPlugin
import Testing

/// `per_device: true` (issue 16, item 3): one service watching many devices gives each device
/// exactly what a service of its own would give on that device's messages alone, on topics with
/// the device appended.
struct PerDeviceServiceTests {
    typealias S = LocationScene

    /// Three devices moving differently, interleaved in time, with clock ticks.
    static func scene() -> (all: [BusMessage], byDevice: [String: [BusMessage]]) {
        var byDevice: [String: [BusMessage]] = [:]
        for (k, device) in ["van1", "van2", "van3"].enumerated() {
            // van1 walks north, van2 stays put (a visit), van3 walks, stops, walks.
            byDevice[device] = (0..<900).compactMap { t -> BusMessage? in
                guard t % (k + 1) == 0 else { return nil }
                let north: Double
                switch k {
                case 0: north = Double(t) * 1.4
                case 1: north = Double(t % 7)
                default: north = t < 300 ? Double(t) * 1.2 : t < 700 ? 360 : 360 + Double(t - 700) * 1.2
                }
                return S.fix(device, at: Double(t), north: north)
            }
        }
        let ticks = S.ticks(0, 960)
        return (timeline(byDevice["van1"]!, byDevice["van2"]!, byDevice["van3"]!, ticks),
                byDevice.mapValues { timeline($0, ticks) })
    }

    static func json(_ e: EmittedEvent) -> String {
        var w = JSONWriter(capacity: 256)
        e.payload.write(to: &w)
        return String(decoding: w.bytes, as: UTF8.self)
    }

    func check<P: ServicePlugin>(_ make: () -> P) throws {
        let scene = Self.scene()
        var shared = ServiceRun(PerDeviceService(prototype: make()))
        try shared.feed(scene.all)
        var devicesWithEvents = 0
        for (device, messages) in scene.byDevice.sorted(by: { $0.key < $1.key }) {
            var alone = ServiceRun(make())
            try alone.feed(messages)
            let mine = shared.events.filter { $0.topic.hasSuffix("." + device) }
            if !alone.events.isEmpty { devicesWithEvents += 1 }
            #expect(mine.map(\.topic) == alone.events.map { $0.topic + "." + device }, "\(device)")
            #expect(mine.map(\.seconds) == alone.events.map(\.seconds), "\(device)")
            #expect(mine.map(Self.json) == alone.events.map(Self.json), "\(device): payloads differ")
        }
        #expect(devicesWithEvents >= 2, "a scene where the service has something to say")
        #expect(shared.service.deviceCount == 3)
        #expect(shared.events.count == shared.events.filter { e in ["van1", "van2", "van3"].contains { e.topic.hasSuffix("." + $0) } }.count)
    }

    @Test func standardPerDeviceIsEachDevicesOwnStandard() throws {
        try check { StandardService(id: "here", configuration: .with { $0.distanceFilter = 10; $0.maxInterval = 120 }) }
    }

    @Test func visitsPerDeviceIsEachDevicesOwnVisits() throws {
        try check { VisitsService(id: "visits", configuration: .init()) }
    }

    @Test func producedTopicsBecomeFamilies() {
        let s = PerDeviceService(prototype: StandardService(id: "here", configuration: .init()))
        #expect(s.produces.allSatisfy { $0.hasSuffix(".") })
        #expect(s.produces.contains("location.update.here."))
    }

    /// A stream of invented device names stops growing the service at `max_devices`: the devices
    /// it has keep their events, further ones are dropped and counted.
    @Test func devicesPastMaxDevicesAreDroppedAndCounted() throws {
        let scene = Self.scene()
        var bounded = ServiceRun(PerDeviceService(prototype: StandardService(id: "here", configuration: .init()), maxDevices: 2))
        try bounded.feed(scene.all)
        var unbounded = ServiceRun(PerDeviceService(prototype: StandardService(id: "here", configuration: .init())))
        try unbounded.feed(scene.all)
        #expect(bounded.service.deviceCount == 2)
        let van3 = scene.byDevice["van3"]!.filter { $0.topic.hasPrefix("obs.") }.count
        #expect(bounded.service.counters.droppedTooManyDevices == van3)
        #expect(bounded.service.reportedCounters == ["dropped_too_many_devices": UInt64(van3)])
        #expect(bounded.events.map(\.topic) == unbounded.events.filter { !$0.topic.hasSuffix(".van3") }.map(\.topic))
        #expect(unbounded.service.counters.droppedTooManyDevices == 0)
    }
}
