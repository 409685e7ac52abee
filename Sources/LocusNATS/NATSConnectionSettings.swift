/// Where and how to connect to NATS: what a `nats` entry's connection keys say.
public struct NATSConnectionSettings: Sendable, Equatable {
    /// `nats://host:port` URLs of the servers of one cluster; the client fails over between them.
    public var servers: [String]
    /// The connection's name, shown by the server's monitoring (`/connz`).
    public var name: String
    public var user: String?
    public var password: String?
    public var token: String?
    /// How long a connect attempt and each JetStream request may take, in milliseconds.
    public var timeoutMs: Int64

    public init(servers: [String], name: String, user: String? = nil, password: String? = nil, token: String? = nil,
                timeoutMs: Int64 = 2000) {
        self.servers = servers
        self.name = name
        self.user = user
        self.password = password
        self.token = token
        self.timeoutMs = timeoutMs
    }
}
