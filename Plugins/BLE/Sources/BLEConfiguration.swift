import LocusCore

/// Options of the `ble` source.
public struct BLEConfiguration: DeclaredConfiguration {
    /// BlueZ adapter name (`hci0`); nil = the first adapter BlueZ lists.
    // It becomes part of an object path (/org/bluez/<adapter>).
    @Setting("adapter", "BlueZ adapter to scan with (e.g. hci0); null = the first adapter BlueZ lists.", default: "null",
             check: SettingCheck { a in
                 guard let a, a.isEmpty || !a.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else { return nil }
                 return "must be an adapter name such as hci0, found '\(a)'"
             })
    public var adapter: String? = nil

    @Setting("bus", "D-Bus bus where bluetoothd is: system, or a D-Bus address such as unix:path=/run/dbus/system_bus_socket.",
             check: SettingCheck { bus in
                 bus == "system" || (bus.contains(":") && bus.contains("=")) ? nil
                     : "must be 'system' or a D-Bus address such as unix:path=/run/dbus/system_bus_socket, found '\(bus)'"
             })
    public var bus: String = "system"

    /// D-Bus address of the bus bluetoothd is on; nil = the system bus.
    public var busAddress: String? { bus == "system" ? nil : bus }

    /// Advertisements weaker than this (dBm) are not reported; nil = all.
    @Setting("rssi_threshold", "Only report advertisements at least this strong (dBm, -127 to 20); passed to BlueZ's discovery filter and applied again by Locus. null = all.",
             default: "null", check: SettingCheck { r in r.map { (-127...20).contains($0) ? nil : "must be between -127 and 20 dBm, found \($0)" } ?? nil })
    public var rssiThreshold: Int? = nil

    /// BlueZ `DuplicateData`: report every advertisement, not only those whose data changed.
    @Setting("duplicate_data", "Ask BlueZ to report every advertisement (DuplicateData), not only those whose data changed; RSSI then updates continuously.")
    public var duplicateData: Bool = true

    /// Least seconds between two observations of one device; 0 = every advertisement.
    @Setting("min_interval", "Least seconds between two observations of the same device (a rate limit); 0 = one observation per advertisement.",
             check: .within(0...3600, unit: "seconds"))
    public var minInterval: Double = 0

    /// Cap of the retry backoff, seconds (it starts at 0.25 s and doubles).
    @Setting("reconnect_max", "Cap in seconds of the retry backoff while the bus, bluetoothd or the adapter is unavailable; it starts at 0.25 s and doubles.",
             check: .within(0.25...3600, unit: "seconds"))
    public var reconnectMax: Double = 10

    public init() {}
}
