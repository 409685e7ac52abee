import Foundation
import LocusCore
import LocusTestKit
@testable import LocusBeaconPlugin

/// Advertisements and ticks for the beacon service's tests, at seconds after
/// `LocationScene.origin` (the same clock as the other services' tests).
enum BeaconScene {
    static let charmUUID = "426c7565-4368-6172-6d42-6561636f6e73"
    static let namespace = "626c7565636861726d31"

    static func iBeacon(major: Int = 3838, minor: Int = 4949, power: Int? = -59) -> BLEAdvertisement.Beacon {
        .init(format: "ibeacon", uuid: charmUUID, major: major, minor: minor, measuredPower: power)
    }

    /// An advertisement of `beacon` heard with `rssi` from `address`.
    static func ad(_ beacon: BLEAdvertisement.Beacon?, rssi: Int = -65, at seconds: Double, address: String = "4A:00:00:00:00:01",
                   source: String = "ble0", manufacturerData: [BLEAdvertisement.ManufacturerData] = [],
                   serviceData: [BLEAdvertisement.ServiceData] = []) -> BusMessage {
        let ad = BLEAdvertisement(source: source, address: address, addressType: "random", rssi: rssi,
                                  manufacturerData: manufacturerData, serviceData: serviceData, beacon: beacon)
        return LocationScene.message(ad, topic: "obs.ble.\(source)", producer: source, at: LocationScene.time(seconds))
    }

    /// The RSSI a beacon with 1 m power -59 dBm gives at `metres` under the service's default model (n = 2).
    static func rssi(at metres: Double) -> Int { Int((-59 - 20 * log10(metres)).rounded()) }

    static func condition(_ id: String, _ definition: [String: JSONValue]) throws -> BeaconCondition {
        var d = definition
        d["id"] = .string(id)
        return try BeaconCondition(definition: .object(d), origin: .config)
    }

    static func service(_ conditions: [BeaconCondition], rangeInterval: Double = 1,
                        sources: [String] = []) throws -> ServiceRun<BeaconService> {
        ServiceRun(try BeaconService(id: "beacons", configuration: BeaconConfiguration.with { $0.conditions = conditions; $0.rangeInterval = rangeInterval; $0.sources = sources }))
    }

    /// Feeds ads and whole-second ticks merged in time order.
    static func play(_ run: inout ServiceRun<BeaconService>, ads: [BusMessage], ticks: ClosedRange<Int>) throws {
        try run.feed(timeline(ads, LocationScene.ticks(ticks.lowerBound, ticks.upperBound)))
    }
}
