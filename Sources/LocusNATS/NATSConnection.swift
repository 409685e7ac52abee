import Glibc
import CNATS

/// One connection to a NATS cluster with its JetStream context. It belongs to the thread that made
/// it (Locus's rule for sockets); libnats reconnects underneath, between the configured servers,
/// and a call made while it is away fails with an error the caller counts and retries.
public final class NATSConnection {
    let connection: OpaquePointer
    let jetStream: OpaquePointer
    public let settings: NATSConnectionSettings

    public init(_ settings: NATSConnectionSettings) throws {
        try NATSLibrary.load()
        self.settings = settings
        var options: OpaquePointer?
        try check(natsOptions_Create(&options), "create NATS options")
        defer { natsOptions_Destroy(options) }
        let servers = settings.servers.map { strdup($0) }
        defer { servers.forEach { free($0) } }
        var pointers = servers.map { UnsafePointer($0) }
        try pointers.withUnsafeMutableBufferPointer { list in
            try check(natsOptions_SetServers(options, list.baseAddress, Int32(list.count)), "set NATS servers")
        }
        try check(natsOptions_SetName(options, settings.name), "set the connection name")
        try check(natsOptions_SetTimeout(options, settings.timeoutMs), "set the connect timeout")
        // Forever: a server of the group keeps trying while the cluster is away, 1 s apart.
        try check(natsOptions_SetMaxReconnect(options, -1), "set reconnects")
        try check(natsOptions_SetReconnectWait(options, 1000), "set the reconnect wait")
        if let user = settings.user {
            try check(natsOptions_SetUserInfo(options, user, settings.password), "set user and password")
        }
        if let token = settings.token { try check(natsOptions_SetToken(options, token), "set the token") }
        var connection: OpaquePointer?
        try check(natsConnection_Connect(&connection, options), "connect to \(settings.servers.joined(separator: ","))")
        var jsOptions = jsOptions()
        jsOptions_Init(&jsOptions)
        jsOptions.Wait = settings.timeoutMs
        var jetStream: OpaquePointer?
        let status = natsConnection_JetStream(&jetStream, connection, &jsOptions)
        guard status == NATS_OK, let connection, let jetStream else {
            natsConnection_Destroy(connection)
            throw NATSError(operation: "open JetStream", status: status)
        }
        self.connection = connection
        self.jetStream = jetStream
    }

    deinit {
        jsCtx_Destroy(jetStream)
        natsConnection_Close(connection)
        natsConnection_Destroy(connection)
    }

    /// Whether the client is connected now (not reconnecting, not closed).
    public var isConnected: Bool { natsConnection_Status(connection) == NATS_CONN_STATUS_CONNECTED }
}
