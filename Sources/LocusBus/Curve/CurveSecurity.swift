import CZeroMQ

/// What a server socket needs to bind an endpoint with CURVE: its secret key, and the ZAP
/// domain whose `AuthorizedKeys` decide who may connect (`ZAPHandler.authorize`).
public struct CurveServer: Sendable, Equatable {
    public var secretKey: CurveKey
    public var domain: String

    public init(secretKey: CurveKey, domain: String) {
        self.secretKey = secretKey
        self.domain = domain
    }
}

/// What a client socket needs to connect to a CURVE endpoint: the server's public key and the
/// client's own keypair (its public key must be in the server's authorized keys).
public struct CurveClient: Sendable, Equatable {
    public var serverKey: CurveKey
    public var publicKey: CurveKey
    public var secretKey: CurveKey

    public init(serverKey: CurveKey, publicKey: CurveKey, secretKey: CurveKey) {
        self.serverKey = serverKey
        self.publicKey = publicKey
        self.secretKey = secretKey
    }
}

extension ZMQContext {
    /// True while a `ZAPHandler` serves this context.
    var hasZAPHandler: Bool { zapHandler.value }
    func markZAPHandler(_ on: Bool) { zapHandler.value = on }
}

extension ZMQSocket {
    /// Binds `endpoint` with CURVE when `curve` is set (plain `bind` otherwise). libzmq copies a
    /// socket's options into each listener at bind time, so the CURVE options are set for this
    /// bind only and cleared after it: one socket may serve CURVE on a TCP endpoint and plain
    /// ipc on another. libzmq cannot clear the ZAP domain, so bind plain endpoints first
    /// (`bindOrder`); the handler lets NULL-mechanism requests through either way. Refuses unless a `ZAPHandler` serves the context — without one libzmq
    /// would let any client key in.
    public func bind(_ endpoint: String, curve: CurveServer?) throws {
        guard let curve else { return try bind(endpoint) }
        guard context.hasZAPHandler else {
            throw ZMQError(code: EFAULT, operation: "bind", endpoint: endpoint,
                           message: "CURVE needs the authentication handler running first (it makes authorized_keys an allow-list)")
        }
        let h = try liveHandle("bind", endpoint: endpoint)
        try setInt(h, ZMQ_CURVE_SERVER, 1, "enable CURVE")
        defer {
            _ = try? setInt(h, ZMQ_CURVE_SERVER, 0, "disable CURVE")
        }
        try setBytes(h, ZMQ_CURVE_SECRETKEY, curve.secretKey.bytes, "set the CURVE secret key")
        try setBytes(h, ZMQ_ZAP_DOMAIN, Array(curve.domain.utf8), "set the ZAP domain")
        // Where libzmq has it (a draft option in 4.3): refuse clients if the handler is gone.
        var one: Int32 = 1
        _ = zmq_setsockopt(h, 93 /* ZMQ_ZAP_ENFORCE_DOMAIN */, &one, MemoryLayout<Int32>.size)
        try bind(endpoint)
    }

    /// `endpoints` with the plain ones first, order otherwise kept (see `bind(_:curve:)`).
    public static func bindOrder(_ endpoints: [String], curve: [String: CurveServer]) -> [String] {
        endpoints.filter { curve[$0] == nil } + endpoints.filter { curve[$0] != nil }
    }

    /// Makes the next `connect`s CURVE clients of a server with `curve.serverKey`. Call before `connect`.
    public func setCurveClient(_ curve: CurveClient) throws {
        let h = try liveHandle("set CURVE client keys")
        try setBytes(h, ZMQ_CURVE_SERVERKEY, curve.serverKey.bytes, "set the CURVE server key")
        try setBytes(h, ZMQ_CURVE_PUBLICKEY, curve.publicKey.bytes, "set the CURVE public key")
        try setBytes(h, ZMQ_CURVE_SECRETKEY, curve.secretKey.bytes, "set the CURVE secret key")
    }

    /// The ZAP user id of the connection `message` came from (the CURVE client's key name), if any.
    static func userID(of message: UnsafeMutablePointer<zmq_msg_t>) -> String? {
        guard let p = zmq_msg_gets(message, "User-Id") else { return nil }
        return String(cString: p)
    }

    private func setInt(_ h: UnsafeMutableRawPointer, _ option: Int32, _ value: Int32, _ what: String) throws {
        var v = value
        guard zmq_setsockopt(h, option, &v, MemoryLayout<Int32>.size) == 0 else { throw ZMQError.last(what) }
    }

    private func setBytes(_ h: UnsafeMutableRawPointer, _ option: Int32, _ bytes: [UInt8], _ what: String) throws {
        let rc = bytes.withUnsafeBytes { zmq_setsockopt(h, option, $0.baseAddress, $0.count) }
        guard rc == 0 else { throw ZMQError.last(what) }
    }
}
