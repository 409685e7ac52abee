import LocusCore

/// Options of the `web` sink: the HTTP gateway for browsers (Server-Sent Events, WebSocket,
/// `/state`, the map page).
public struct WebConfiguration: DeclaredConfiguration {
    @Setting("listen", "host:port to serve on. Loopback (127.0.0.1, ::1, localhost) needs no token; any other address needs token_file.")
    public var listen: String = "127.0.0.1:8080"

    @Setting("token_file", "File whose first line is the access token; clients send it as 'Authorization: Bearer <token>' or ?token=<token> (the map page's URL). Required when listen is not loopback; optional on loopback.")
    public var tokenFile: String = ""

    @Setting("topics", "Topic prefixes the gateway takes from the bus; \"\" takes everything not in exclude. Clients choose among them (?topics= for SSE, subscribe for WebSocket).",
             check: .topicPrefixes())
    public var topics: [String] = [""]

    @Setting("exclude", "Topic prefixes never served.", check: .topicPrefixes())
    public var exclude: [String] = ["clock."]

    @Setting("precision", "Metres: every latitude/longitude served is snapped to a grid this size, accuracies raised to it, speed, course and altitude removed (as an endpoint's precision); 0 = exact.",
             check: .atLeast(0, unit: "m"))
    public var precision: Double = 0

    @Setting("history", "Recent events kept in memory and sent first to a client that asks (?history=1: the map page, so it draws the track so far).",
             check: .within(0...1_000_000))
    public var history: Int = 5000

    @Setting("client_queue", "Events held for each event-stream client that reads slower than they come; a client that falls further behind is cut off (its connection closed, clients_cut_off; the events it was waiting for count as dropped_slow_client). An SSE client resumes with Last-Event-ID.",
             check: .within(1...1_000_000))
    public var clientQueue: Int = 1000

    @Setting("client_buffer", "Bytes held for each event-stream client (events waiting, each counted as sent, and the piece being written); past it the client is cut off as past client_queue.",
             check: .within(4096...1_073_741_824))
    public var clientBuffer: Int = 262_144

    @Setting("max_clients", "Event streams (SSE and WebSocket) served at once; more are refused with 503 and counted.",
             check: .within(1...100_000))
    public var maxClients: Int = 2000

    @Setting("max_header_bytes", "Bytes of a request's head (request line and headers); a longer one is answered 431 and its connection closed (heads_too_large).",
             check: .within(1024...1_048_576))
    public var maxHeaderBytes: Int = 32_768

    @Setting("header_timeout", "Seconds a request's head may take to arrive from its first byte; a slower one is answered 408 and its connection closed (header_timeouts).",
             check: .above(0, unit: "s"))
    public var headerTimeout: Double = 10

    @Setting("idle_timeout", "Seconds a connection may stay open without a request in progress (after connecting, between keep-alive requests); then it is closed (idle_closed).",
             check: .above(0, unit: "s"))
    public var idleTimeout: Double = 60

    @Setting("write_timeout", "Seconds a client may accept no bytes while some wait to be written to it; then its connection is closed (write_timeouts).",
             check: .above(0, unit: "s"))
    public var writeTimeout: Double = 30

    @Setting("max_connections_per_address", "Connections open at once from one client address; more are answered 503 and closed (connections_refused).",
             check: .within(1...1_000_000))
    public var maxConnectionsPerAddress: Int = 128

    @Setting("max_streams_per_address", "Event streams (SSE and WebSocket) open at once from one client address; more are answered 503 (streams_refused). Below max_connections_per_address, so that one local user holding streams leaves connections for other local clients' pages and /state (on loopback every local client has the same address).",
             check: .within(1...1_000_000))
    public var maxStreamsPerAddress: Int = 32

    @Setting("keepalive", "Seconds between SSE comment lines on an idle stream, so proxies and browsers keep it open.",
             check: .above(0, unit: "s"))
    public var keepalive: Double = 15

    @Setting("tile_url", "Map tiles for the page, such as https://tile.openstreetmap.org/{z}/{x}/{y}.png; empty (devices are often offline) draws a plain background with a grid.")
    public var tileURL: String = ""

    @Setting("tile_attribution", "Attribution shown under the tiles (required by most tile servers).")
    public var tileAttribution: String = ""

    @Setting("title", "The page's title.")
    public var title: String = "Locus"

    public init() {}
}
