import LocusCore

/// What a `gpsd-server` sink did since it started (`locus ctl status`, metrics). `dropped_*`
/// fields also appear among the daemon's drop counters and in `status.drops`.
public struct GpsdServerCounters: ZeroedCounters, Equatable {
    /// Clients connected since the sink started.
    public var clientsOpened = 0
    /// Clients connected now.
    public var clientsOpen = 0
    /// Clients refused: max_clients were connected and none could be evicted.
    public var clientsRefused = 0
    /// Clients refused: max_clients_per_address were connected from their address and none
    /// of those could be evicted.
    public var clientsRefusedPerAddress = 0
    /// Clients closed to make room for a new one (the server or its address was full): the
    /// longest-stalled (accepted no byte for a second while reports waited), else the watcher
    /// that left the most unread at its end (over 4 KiB by its advertised TCP window), else the
    /// longest quiet (no byte accepted and no request for 10 s).
    public var clientsEvicted = 0
    /// Clients watching now (`?WATCH={"enable":true}`).
    public var clientsWatching = 0
    /// Requests taken (each command of a client).
    public var requests = 0
    /// Requests answered with an ERROR report (unknown command, bad argument, a device change).
    public var badRequests = 0
    /// Clients closed for a request longer than max_request_bytes.
    public var requestsTooLong = 0
    /// Clients closed for a request not complete within request_timeout.
    public var requestTimeouts = 0
    /// Clients closed after idle_timeout without a request while not watching.
    public var idleClosed = 0
    /// Clients closed because they accepted no bytes for write_timeout while reports waited.
    public var writeTimeouts = 0
    /// Clients cut off for falling client_buffer bytes behind.
    public var clientsCutOff = 0
    /// TPV, SKY and DEVICE reports and NMEA sentences written to clients (one per client and report).
    public var reportsSent = 0
    /// Fixes and sky views taken from the bus and turned into reports.
    public var fixesTaken = 0
    public var skyViewsTaken = 0
    /// NMEA sentences taken from the bus (`obs.nmea`), for clients watching with nmea or raw.
    public var sentencesTaken = 0
    /// Reports (and sentences) a client lost because it was cut off, timed out or closed while
    /// they waited for it.
    public var droppedSlowClient = 0
    /// Bus messages not served because the server's thread fell more than a second's worth
    /// of reports behind the bus (a flood): the bus is never slowed by clients.
    public var droppedServerBusy = 0
    /// Fixes, sky views and sentences of sources beyond max_devices.
    public var droppedTooManyDevices = 0
    /// Devices dropped after device_timeout without a report (watchers were sent gpsd's DEVICE
    /// with activated 0).
    public var devicesExpired = 0
    /// `obs.nmea` sentences not passed on: not one framed, checksummed NMEA sentence of
    /// printable ASCII of at most 256 bytes (a forged report after a line end, say).
    public var droppedBadSentence = 0
    /// Fixes, sky views and sentences whose `source` is not their topic's last segment.
    public var droppedSourceMismatch = 0
    /// Fixes, sky views and sentences of devices this server does not serve: not listed in
    /// `sources`, or, with `sources: []`, not one of the config's own sources (an outside
    /// publisher's, a fleet source's phones). The configuration's choice, not a loss, so not
    /// among the daemon's drops.
    public var ignoredUnlistedDevice = 0
    /// Bus messages on the sink's topics that did not read as a fix or sky view.
    public var droppedUnreadable = 0
    public init() {}
}
