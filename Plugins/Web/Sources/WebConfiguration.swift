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

    @Setting("client_queue", "Events held for each client that reads slower than they come; more are dropped (the oldest first) and counted as dropped_slow_client.",
             check: .within(1...1_000_000))
    public var clientQueue: Int = 1000

    @Setting("max_clients", "Event streams (SSE and WebSocket) served at once; more are refused with 503 and counted.",
             check: .within(1...100_000))
    public var maxClients: Int = 2000

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
