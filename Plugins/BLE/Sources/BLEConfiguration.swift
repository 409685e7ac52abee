import LocusCore

/// Options of the `ble` source.
public struct BLEConfiguration: PluginConfiguration {
    /// BlueZ adapter name (`hci0`); nil = the first adapter BlueZ lists.
    public var adapter: String?
    /// D-Bus address of the bus bluetoothd is on; nil = the system bus.
    public var busAddress: String?
    /// Advertisements weaker than this (dBm) are not reported; nil = all.
    public var rssiThreshold: Int?
    /// BlueZ `DuplicateData`: report every advertisement, not only those whose data changed.
    public var duplicateData: Bool
    /// Least seconds between two observations of one device; 0 = every advertisement.
    public var minInterval: Double
    /// Cap of the retry backoff, seconds (it starts at 0.25 s and doubles).
    public var reconnectMax: Double

    public static let keys: [ConfigKey] = [
        ConfigKey("adapter", "string", default: "null", "BlueZ adapter to scan with (e.g. hci0); null = the first adapter BlueZ lists."),
        ConfigKey("bus", "string", default: "system", "D-Bus bus where bluetoothd is: system, or a D-Bus address such as unix:path=/run/dbus/system_bus_socket."),
        ConfigKey("rssi_threshold", "integer", default: "null", "Only report advertisements at least this strong (dBm, -127 to 20); passed to BlueZ's discovery filter and applied again by Locus. null = all."),
        ConfigKey("duplicate_data", "boolean", default: "true", "Ask BlueZ to report every advertisement (DuplicateData), not only those whose data changed; RSSI then updates continuously."),
        ConfigKey("min_interval", "number", default: "0", "Least seconds between two observations of the same device (a rate limit); 0 = one observation per advertisement."),
        ConfigKey("reconnect_max", "number", default: "10", "Cap in seconds of the retry backoff while the bus, bluetoothd or the adapter is unavailable; it starts at 0.25 s and doubles."),
    ]

    enum CodingKeys: String, CodingKey { case adapter, bus, rssi_threshold, duplicate_data, min_interval, reconnect_max }

    public init(adapter: String? = nil, busAddress: String? = nil, rssiThreshold: Int? = nil, duplicateData: Bool = true,
                minInterval: Double = 0, reconnectMax: Double = 10) {
        self.adapter = adapter
        self.busAddress = busAddress
        self.rssiThreshold = rssiThreshold
        self.duplicateData = duplicateData
        self.minInterval = minInterval
        self.reconnectMax = reconnectMax
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        adapter = try c.decodeIfPresent(String.self, forKey: .adapter)
        if let a = adapter {
            // It becomes part of an object path (/org/bluez/<adapter>).
            guard !a.isEmpty, a.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                throw ConfigValueError(key: "adapter", "adapter must be an adapter name such as hci0, found '\(a)'")
            }
        }
        let bus = try c.decodeIfPresent(String.self, forKey: .bus) ?? "system"
        if bus == "system" {
            busAddress = nil
        } else {
            guard bus.contains(":"), bus.contains("=") else {
                throw ConfigValueError(key: "bus", "bus must be 'system' or a D-Bus address such as unix:path=/run/dbus/system_bus_socket, found '\(bus)'")
            }
            busAddress = bus
        }
        rssiThreshold = try c.decodeIfPresent(Int.self, forKey: .rssi_threshold)
        if let r = rssiThreshold, !(-127...20).contains(r) {
            throw ConfigValueError(key: "rssi_threshold", "rssi_threshold must be between -127 and 20 dBm, found \(r)")
        }
        duplicateData = try c.decodeIfPresent(Bool.self, forKey: .duplicate_data) ?? true
        minInterval = try c.decodeIfPresent(Double.self, forKey: .min_interval) ?? 0
        guard minInterval.isFinite, minInterval >= 0, minInterval <= 3600 else {
            throw ConfigValueError(key: "min_interval", "min_interval must be between 0 and 3600 seconds, found \(minInterval)")
        }
        reconnectMax = try c.decodeIfPresent(Double.self, forKey: .reconnect_max) ?? 10
        guard reconnectMax.isFinite, reconnectMax >= 0.25, reconnectMax <= 3600 else {
            throw ConfigValueError(key: "reconnect_max", "reconnect_max must be between 0.25 and 3600 seconds, found \(reconnectMax)")
        }
    }
}
