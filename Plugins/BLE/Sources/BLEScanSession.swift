import LocusBLE
import LocusCore

/// Counters of a running `ble` source.
public struct BLECounters: ZeroedCounters, Equatable {
    /// `obs.ble` observations published.
    public var advertisements = 0
    /// Distinct device objects that appeared (a device BlueZ forgot and finds again counts again).
    public var devicesSeen = 0
    /// Property values of an unexpected type, skipped.
    public var malformedValues = 0
    /// Advertisements dropped by `min_interval`.
    public var rateLimited = 0
    /// Advertisements dropped by `rssi_threshold`.
    public var belowThreshold = 0
    /// Times scanning was started (at start-up and after each recovery).
    public var discoveryStarts = 0
    public init() {}
}

/// The devices one adapter reports, and which of their changes become observations.
///
/// Pure state: D-Bus updates and a monotonic time in, advertisements out; `BLEScanLoop` feeds it.
/// Devices are keyed by their BlueZ object path, so a device BlueZ removes and re-creates starts afresh.
struct BLEScanSession {
    let source: String
    let rssiThreshold: Int?
    let minInterval: Double
    /// The adapter's object path (`/org/bluez/hci0`); devices elsewhere are ignored.
    private(set) var adapterPath: String?
    private(set) var devices: [String: BlueZDeviceProperties] = [:]
    private var lastPublished: [String: Double] = [:]
    var counters = BLECounters()

    init(source: String, rssiThreshold: Int? = nil, minInterval: Double = 0) {
        self.source = source
        self.rssiThreshold = rssiThreshold
        self.minInterval = minInterval
    }

    /// Scanning moved to `path` (nil: no adapter); the devices of any other adapter are forgotten.
    mutating func use(adapter path: String?) {
        if path != adapterPath {
            devices.removeAll()
            lastPublished.removeAll()
        }
        adapterPath = path
    }

    private func belongs(_ path: String) -> Bool {
        guard let a = adapterPath else { return false }
        return path.hasPrefix(a + "/")
    }

    /// A `Device1` from `InterfacesAdded` (`seed` false: a device just heard) or from
    /// `GetManagedObjects` (`seed` true: BlueZ's cache, which is not an advertisement).
    mutating func deviceAdded(path: String, properties dict: [String: DBusValue], now: Double,
                              seed: Bool = false) -> BLEAdvertisement? {
        guard belongs(path) else { return nil }
        let d = BlueZDeviceDecoding(dict)
        counters.malformedValues += d.malformed.count
        if devices[path] == nil { counters.devicesSeen += 1 }
        devices[path] = d.properties
        lastPublished[path] = nil
        guard !seed, d.carriesAdvertisement else { return nil }
        return observation(path, now: now)
    }

    /// A `PropertiesChanged` of a `Device1`.
    mutating func deviceChanged(path: String, changed: [String: DBusValue], invalidated: [String],
                                now: Double) -> BLEAdvertisement? {
        guard belongs(path) else { return nil }
        let d = BlueZDeviceDecoding(changed)
        counters.malformedValues += d.malformed.count
        if devices[path] == nil {
            // Changes before the device was announced (missed InterfacesAdded): start from them.
            counters.devicesSeen += 1
            devices[path] = BlueZDeviceProperties(address: Self.address(fromPath: path))
        }
        devices[path]!.merge(d.properties, invalidated: invalidated)
        guard d.carriesAdvertisement else { return nil }
        return observation(path, now: now)
    }

    /// BlueZ names device objects `…/dev_AA_BB_CC_DD_EE_FF`.
    static func address(fromPath path: String) -> String? {
        guard let last = path.split(separator: "/").last, last.hasPrefix("dev_") else { return nil }
        let parts = last.dropFirst(4).split(separator: "_")
        guard parts.count == 6, parts.allSatisfy({ $0.count == 2 && $0.allSatisfy(\.isHexDigit) }) else { return nil }
        return parts.joined(separator: ":")
    }

    mutating func deviceRemoved(path: String) {
        devices[path] = nil
        lastPublished[path] = nil
    }

    private mutating func observation(_ path: String, now: Double) -> BLEAdvertisement? {
        guard let adv = devices[path]?.advertisement(source: source) else { return nil }
        if let t = rssiThreshold, adv.rssi < t {
            counters.belowThreshold += 1
            return nil
        }
        if minInterval > 0, let last = lastPublished[path], now - last < minInterval {
            counters.rateLimited += 1
            return nil
        }
        lastPublished[path] = now
        counters.advertisements += 1
        return adv
    }
}
