import LocusConditions
import LocusCore

/// Ranging: the matching beacons heard lately, nearest first (`beacon.range.<id>`), every
/// `range_interval` of event time while the condition is satisfied — Core Location's
/// `CLBeacon` list of a ranging constraint.
public struct BeaconRange: Payload, Equatable {
    public static let eventType = "beacon.range"
    public static let schemaVersion = 1

    /// One beacon's estimate.
    public struct Entry: Sendable, Equatable {
        public var identity: BeaconIdentity
        /// Smoothed RSSI (`RSSIFilter`), dBm.
        public var rssi: Double
        /// Metres, from the smoothed RSSI and the beacon's calibrated 1 m power.
        public var distance: Double
        public var proximity: Proximity
        /// Calibrated power at 1 m used for `distance`, dBm.
        public var measuredPower: Int
        public var lastHeard: EventTime
        /// Advertisements the filter has taken since the beacon was (re)acquired.
        public var samples: Int

        public init(identity: BeaconIdentity, rssi: Double, distance: Double, proximity: Proximity, measuredPower: Int,
                    lastHeard: EventTime, samples: Int) {
            self.identity = identity
            self.rssi = rssi
            self.distance = distance
            self.proximity = proximity
            self.measuredPower = measuredPower
            self.lastHeard = lastHeard
            self.samples = samples
        }
    }

    /// The condition's id.
    public var beacon: String
    public var monitor: String
    /// The scanning device (`per_device: true`), as in `BeaconEventBody.device`.
    public var device: String?
    public var beacons: [Entry]
    public var properties: [String: JSONValue]

    public init(beacon: String, monitor: String, beacons: [Entry], properties: [String: JSONValue] = [:]) {
        self.beacon = beacon
        self.monitor = monitor
        self.beacons = beacons
        self.properties = properties
    }
}
