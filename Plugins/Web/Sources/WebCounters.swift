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
    /// Events dropped for a client that read slower than they came (client_queue full).
    public var droppedSlowClient = 0
    /// Events that could not be served at the configured precision (a payload that is not an object).
    public var droppedUnreducible = 0
    /// Events a resuming client asked for that the journal no longer holds (retention).
    public var droppedRetention = 0
    /// WebSocket messages from clients that were not a valid subscribe/unsubscribe request.
    public var badRequests = 0
    public init() {}
}
