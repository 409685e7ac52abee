import LocusCore

/// Options of the `gpsd` source.
public struct GpsdConfiguration: DeclaredConfiguration {
    @Setting("host", "Host name or address of the gpsd daemon.", check: .notEmpty)
    public var host: String = "127.0.0.1"

    @Setting("port", "TCP port of the gpsd daemon.", check: .within(1...65535))
    public var port: Int = 2947

    /// Only reports whose `device` equals this path are used; nil = every device.
    @Setting("device", "Only use reports from this gpsd device path (e.g. /dev/ttyACM0); null = all devices.", default: "null",
             check: SettingCheck { $0?.isEmpty == true ? "must not be empty (leave it out to accept every device)" : nil })
    public var device: String? = nil

    /// Cap of the reconnect backoff, seconds (it starts at 0.25 s and doubles).
    @Setting("reconnect_max", "Cap in seconds of the reconnect backoff, which starts at 0.25 s and doubles after each failed attempt.",
             check: .within(0.25...3600, unit: "seconds"))
    public var reconnectMax: Double = 10

    /// Seconds without a TPV while connected before `no_data` is reported.
    @Setting("no_data_timeout", "Seconds connected without a TPV report (from the selected device) before status no_data is reported.",
             check: .within(0.1...86_400, unit: "seconds"))
    public var noDataTimeout: Double = 10

    /// Seconds a fix's date may be away from the host clock or from the previous fixes.
    @Setting("max_time_error", "Seconds a fix's date may differ from the host clock (once it is set, after 2020) or from what the previous fix and the time elapsed since predict, before the fix is counted as implausible_time and status says so (gpsd's GPS week guess can be 1024 weeks off); the fix is still published. 0 = no check.",
             check: .within(0...1e9, unit: "seconds"))
    public var maxTimeError: Double = 86_400

    public init() {}
}
