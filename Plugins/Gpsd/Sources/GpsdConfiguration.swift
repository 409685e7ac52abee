import LocusCore

/// Options of the `gpsd` source.
public struct GpsdConfiguration: PluginConfiguration {
    public var host: String
    public var port: Int
    /// Only reports whose `device` equals this path are used; nil = every device.
    public var device: String?
    /// Cap of the reconnect backoff, seconds (it starts at 0.25 s and doubles).
    public var reconnectMax: Double
    /// Seconds without a TPV while connected before `no_data` is reported.
    public var noDataTimeout: Double

    public static let keys: [ConfigKey] = [
        ConfigKey("host", "string", default: "127.0.0.1", "Host name or address of the gpsd daemon."),
        ConfigKey("port", "integer", default: "2947", "TCP port of the gpsd daemon."),
        ConfigKey("device", "string", default: "null", "Only use reports from this gpsd device path (e.g. /dev/ttyACM0); null = all devices."),
        ConfigKey("reconnect_max", "number", default: "10", "Cap in seconds of the reconnect backoff, which starts at 0.25 s and doubles after each failed attempt."),
        ConfigKey("no_data_timeout", "number", default: "10", "Seconds connected without a TPV report (from the selected device) before status no_data is reported."),
    ]

    enum CodingKeys: String, CodingKey { case host, port, device, reconnect_max, no_data_timeout }

    public init(host: String = "127.0.0.1", port: Int = 2947, device: String? = nil,
                reconnectMax: Double = 10, noDataTimeout: Double = 10) {
        self.host = host
        self.port = port
        self.device = device
        self.reconnectMax = reconnectMax
        self.noDataTimeout = noDataTimeout
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        host = try c.decodeIfPresent(String.self, forKey: .host) ?? "127.0.0.1"
        guard !host.isEmpty else { throw ConfigValueError(key: "host", "host must not be empty") }
        port = try c.decodeIfPresent(Int.self, forKey: .port) ?? 2947
        guard (1...65535).contains(port) else { throw ConfigValueError(key: "port", "port must be between 1 and 65535, found \(port)") }
        device = try c.decodeIfPresent(String.self, forKey: .device)
        if let d = device, d.isEmpty { throw ConfigValueError(key: "device", "device must not be empty (leave it out to accept every device)") }
        reconnectMax = try c.decodeIfPresent(Double.self, forKey: .reconnect_max) ?? 10
        guard reconnectMax.isFinite, reconnectMax >= 0.25, reconnectMax <= 3600 else {
            throw ConfigValueError(key: "reconnect_max", "reconnect_max must be between 0.25 and 3600 seconds, found \(reconnectMax)")
        }
        noDataTimeout = try c.decodeIfPresent(Double.self, forKey: .no_data_timeout) ?? 10
        guard noDataTimeout.isFinite, noDataTimeout >= 0.1, noDataTimeout <= 86_400 else {
            throw ConfigValueError(key: "no_data_timeout", "no_data_timeout must be between 0.1 and 86400 seconds, found \(noDataTimeout)")
        }
    }
}
