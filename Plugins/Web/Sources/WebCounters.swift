import LocusCore

/// What a `web` sink did since it started (`locus ctl status`, metrics). `dropped_*` fields
/// also appear among the daemon's drop counters and in `status.drops`.
public struct WebCounters: ZeroedCounters, Equatable {
    /// Event streams opened since the sink started (SSE and WebSocket).
    public var clientsOpened = 0
    /// Event streams open now.
    public var clientsOpen = 0
    /// Event streams refused: max_clients reached.
    public var clientsRefused = 0
    /// Requests refused for a missing or wrong token.
    public var unauthorized = 0
    /// Events sent to clients (one per client and event).
    public var sent = 0
    /// Event streams cut off for falling client_queue events or client_buffer bytes behind.
    public var clientsCutOff = 0
    /// Events that were waiting for a client when it was cut off (an SSE client resumes them
    /// from the journal with Last-Event-ID; unjournaled topics are lost to it).
    public var droppedSlowClient = 0
    /// Connections closed because the client accepted no bytes for write_timeout seconds while
    /// some waited.
    public var writeTimeouts = 0
    /// Requests whose head passed max_header_bytes: answered 431, connection closed.
    public var headsTooLarge = 0
    /// Connections whose request head did not arrive whole within header_timeout: answered 408, closed.
    public var headerTimeouts = 0
    /// Connections closed after idle_timeout seconds without a request in progress.
    public var idleClosed = 0
    /// Connections refused because their address had max_connections_per_address open: 503, closed.
    public var connectionsRefused = 0
    /// Event streams refused because their address had max_streams_per_address open: 503.
    public var streamsRefused = 0
    /// Events that could not be served at the configured precision (a payload that is not an object).
    public var droppedUnreducible = 0
    /// Events a resuming client asked for that the journal no longer holds (retention).
    public var droppedRetention = 0
    /// WebSocket messages from clients that were not a valid subscribe/unsubscribe request.
    public var badRequests = 0
    public init() {}
}
