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

    public func write(to w: inout JSONWriter) {
        w.beginObject()
        w.key("beacon"); w.string(beacon)
        w.key("monitor"); w.string(monitor)
        w.field("device", device)
        w.key("beacons"); w.beginArray()
        for e in beacons {
            w.beginObject()
            e.identity.writeMembers(to: &w)
            w.key("rssi"); w.double(e.rssi, fractionDigits: 1)
            w.key("distance"); w.double(e.distance, fractionDigits: 2)
            w.key("proximity"); w.string(e.proximity.rawValue)
            w.key("measured_power"); w.int(e.measuredPower)
            w.key("last_heard"); w.time(e.lastHeard)
            w.key("samples"); w.int(e.samples)
            w.endObject()
        }
        w.endArray()
        w.key("properties"); w.rawValue(JSONValue.object(properties).encoded())
        w.endObject()
    }

    public init(from r: inout JSONReader) throws {
        let v = try JSONValue.decode(Array(try r.readRawValue()))
        guard let beacon = v["beacon"]?.stringValue, let monitor = v["monitor"]?.stringValue,
              case .array(let list)? = v["beacons"] else {
            throw r.error("beacon.range needs beacon, monitor and beacons")
        }
        var entries: [Entry] = []
        for e in list {
            guard let identity = BeaconIdentity(json: e), let rssi = e["rssi"]?.doubleValue,
                  let distance = e["distance"]?.doubleValue,
                  let proximity = e["proximity"]?.stringValue.flatMap(Proximity.init(rawValue:)),
                  let power = e["measured_power"]?.doubleValue, let heard = e["last_heard"]?.stringValue.flatMap(EventTime.init(iso8601:)),
                  let samples = e["samples"]?.doubleValue else {
                throw r.error("each beacon.range entry needs an identity, rssi, distance, proximity, measured_power, last_heard and samples")
            }
            entries.append(Entry(identity: identity, rssi: rssi, distance: distance, proximity: proximity,
                                 measuredPower: Int(power), lastHeard: heard, samples: Int(samples)))
        }
        var properties: [String: JSONValue] = [:]
        if case .object(let p)? = v["properties"] { properties = p }
        self.init(beacon: beacon, monitor: monitor, beacons: entries, properties: properties)
        device = v["device"]?.stringValue
    }
}
