import LocusCore

/// Options of the `gpsd-server` sink: a TCP server speaking gpsd's JSON protocol, so that
/// programs written for gpsd (gpspipe, cgps, Python's `gps`, Navit, OpenCPN, …) read Locus.
public struct GpsdServerConfiguration: DeclaredConfiguration {
    /// Which fixes are served as TPV reports.
    public enum Fixes: String, Sendable, Equatable, CaseIterable, SettingValue {
        /// Every source's own fixes (`obs.fix.<source>`), as gpsd would report its devices.
        case observed
        /// The `standard` service's chosen and filtered locations (`location.update.*`),
        /// each reported as the device it came from.
        case standard
    }

    @Setting("listen", "host:port to serve gpsd's protocol on (gpsd's port is 2947). Anything but loopback needs insecure: true: the protocol has no authentication, so anyone who reaches the port reads this device's locations.")
    public var listen: String = "127.0.0.1:2947"

    @Setting("insecure", "Allow a listen address that is not loopback (the protocol has no authentication or encryption; see docs/security.md).")
    public var insecure: Bool = false

    @Setting("fixes", "Which fixes become TPV reports: observed (obs.fix.<source>: every source's own fixes, as gpsd reports its devices) or standard (location.update.*: the standard service's chosen and filtered locations).")
    public var fixes: Fixes = .observed

    @Setting("sources", "Devices served (each a DEVICE whose path is the device id): device ids (a source's id, a phone's id), or the id of one of this config's sources to serve every device it publishes (an mqtt or nats fleet source). Empty serves this config's own sources only (each publishing its obs.fix.<id>): not the phones of a fleet source nor an outside publisher's devices (counted as ignored_unlisted_device).",
             check: .sourceIds)
    public var sources: [String] = []

    @Setting("device_timeout", "Seconds a device may go without a fix, sky view or sentence before it expires: watchers are sent gpsd's DEVICE with activated 0, ?DEVICES leaves it out and its place under max_devices is free (devices_expired). It comes back with its next report.",
             check: .above(0, unit: "s"))
    public var deviceTimeout: Double = 180

    @Setting("max_devices", "Sources served as devices at most (a fleet source publishes one per phone); reports of more are dropped and counted (dropped_too_many_devices).",
             check: .within(1...100_000))
    public var maxDevices: Int = 256

    @Setting("max_clients", "Clients connected at once. When full, a new client takes the place of the longest-stalled one (accepted no byte for a second while reports waited), else of the watcher that left the most unread (over 4 KiB), else of the longest quiet one (no byte accepted and no request for 10 s), else of the oldest watcher that has not yet shown it reads (taken less than twice its TCP window): clients_evicted; when every client has shown it reads, the new one is sent an ERROR and closed (clients_refused).",
             check: .within(1...10_000))
    public var maxClients: Int = 64

    @Setting("max_clients_per_address", "Clients connected at once from one address (all local programs share 127.0.0.1). One more from that address takes the place of one of that address's clients by the same rules as under max_clients, or is sent an ERROR and closed (clients_refused_per_address).",
             check: .within(1...10_000))
    public var maxClientsPerAddress: Int = 32

    @Setting("client_buffer", "Bytes of reports Locus holds for a client that reads slower than they come, beyond what the kernel holds for it (a send buffer of 16 KiB, about 45 KiB with the kernel's overhead); past it the client is cut off (clients_cut_off; the reports it was waiting for count as dropped_slow_client).",
             check: .within(4096...67_108_864))
    public var clientBuffer: Int = 262_144

    @Setting("write_timeout", "Seconds a client may accept no bytes while reports wait for it (a watcher that stopped reading is seen once the kernel's buffers for it are full: some 170 KiB on loopback, about two minutes of a 1 Hz receiver's reports); then it is cut off (write_timeouts).",
             check: .above(0, unit: "s"))
    public var writeTimeout: Double = 30

    @Setting("max_request_bytes", "Bytes of one request (?WATCH={…}; …); a longer one is answered with an ERROR and the client closed (requests_too_long).",
             check: .within(64...65_536))
    public var maxRequestBytes: Int = 4096

    @Setting("request_timeout", "Seconds a started request may take to arrive whole; then the client is closed (request_timeouts).",
             check: .above(0, unit: "s"))
    public var requestTimeout: Double = 10

    @Setting("idle_timeout", "Seconds a client that is not watching may stay connected without sending a request; then it is closed (idle_closed). Watching clients are never idle.",
             check: .above(0, unit: "s"))
    public var idleTimeout: Double = 600

    public init() {}
}
