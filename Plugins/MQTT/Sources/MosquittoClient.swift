import CMosquitto
import Foundation
import LocusCore
import LocusFormats

/// One libmosquitto client, used from one thread only (the forwarder's): libmosquitto's own
/// network loop is driven by `loop(timeoutMs:)` on that thread, and its callbacks, which run
/// inside that call, only append to `events` for the thread to handle afterwards.
final class MosquittoClient {
    /// What libmosquitto reported during the last `loop` (or `publish`).
    enum Event: Equatable {
        /// CONNACK: 0 = accepted; otherwise the refusal (MQTT 3.1.1 return code or MQTT 5 reason code).
        case connected(code: Int32)
        /// The connection ended: 0 = we asked for it. `errno` is the thread's at the callback,
        /// the cause when `code` is `MOSQ_ERR_ERRNO` (read later, errno would be another call's).
        case disconnected(code: Int32, errno: Int32)
        /// A message left for good: QoS 0 written, QoS 1 PUBACK, QoS 2 PUBCOMP. `reason` is the
        /// MQTT 5 reason code (0 or 0x10 mean accepted; 0x80 and above, refused by the broker).
        case published(mid: Int32, reason: Int32)
        /// A message on a subscribed topic (payload copied).
        case message(topic: String, payload: [UInt8], retained: Bool)
    }

    private final class Inbox {
        var events: [Event] = []
    }

    /// nil once libmosquitto is loaded (on first use, see CMosquitto) and initialised; otherwise
    /// why not, for the plugin's failure.
    private static let libraryFailure: String? = {
        var error = [CChar](repeating: 0, count: 256)
        guard locus_mosquitto_load(&error, error.count) == 0 else {
            let reason = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return "cannot load libmosquitto (\(reason)); install it (Debian: libmosquitto1)"
        }
        return mosquitto_lib_init() == MOSQ_ERR_SUCCESS.rawValue ? nil : "libmosquitto failed to initialise"
    }()

    private let handle: OpaquePointer
    private let inbox = Inbox()
    let protocolVersion: Int32

    /// - Throws: `MQTTError` if libmosquitto cannot be loaded or cannot make a client (out of
    ///   memory, a bad client id).
    init(clientId: String, cleanSession: Bool, protocolVersion: Int32) throws {
        if let failure = Self.libraryFailure { throw MQTTError(failure) }
        let box = Unmanaged.passUnretained(inbox).toOpaque()
        guard let h = mosquitto_new(clientId, cleanSession, box) else {
            throw MQTTError("cannot create an MQTT client (client id '\(clientId)'): \(String(cString: strerror(errno)))")
        }
        handle = h
        self.protocolVersion = protocolVersion
        _ = mosquitto_int_option(h, MOSQ_OPT_PROTOCOL_VERSION, protocolVersion)
        _ = mosquitto_int_option(h, MOSQ_OPT_TCP_NODELAY, 1)
        mosquitto_connect_callback_set(h) { _, obj, rc in
            Unmanaged<Inbox>.fromOpaque(obj!).takeUnretainedValue().events.append(.connected(code: rc))
        }
        mosquitto_disconnect_callback_set(h) { _, obj, rc in
            let cause = errno
            Unmanaged<Inbox>.fromOpaque(obj!).takeUnretainedValue().events.append(.disconnected(code: rc, errno: cause))
        }
        mosquitto_publish_v5_callback_set(h) { _, obj, mid, reason, _ in
            Unmanaged<Inbox>.fromOpaque(obj!).takeUnretainedValue().events.append(.published(mid: mid, reason: reason))
        }
        mosquitto_message_callback_set(h) { _, obj, message in
            guard let m = message?.pointee, let topic = m.topic else { return }
            // At most one byte past what a reader takes: a larger message is still refused as
            // too large, without a copy of its whole payload (a broker may pass up to 256 MB).
            let kept = min(Int(max(0, m.payloadlen)), IncomingLocation.maxBytes + 1)
            let payload = m.payload.map { Array(UnsafeRawBufferPointer(start: $0, count: kept)) } ?? []
            Unmanaged<Inbox>.fromOpaque(obj!).takeUnretainedValue().events.append(
                .message(topic: String(cString: topic), payload: payload, retained: m.retain))
        }
    }

    deinit { mosquitto_destroy(handle) }

    func setCredentials(username: String, password: String?) throws {
        try check(mosquitto_username_pw_set(handle, username, password), "set the username and password")
    }

    /// TLS with a CA file (the broker's certificate must chain to it) and, optionally, a client
    /// certificate and key.
    func setTLS(caFile: String, certFile: String?, keyFile: String?, verifyHostname: Bool) throws {
        try check(mosquitto_tls_set(handle, caFile, nil, certFile, keyFile, nil), "set up TLS (ca_file \(caFile))")
        if !verifyHostname { try check(mosquitto_tls_insecure_set(handle, true), "turn off host name verification") }
    }

    /// The message the broker publishes for us if the connection dies without a DISCONNECT.
    func setWill(topic: String, payload: [UInt8], qos: Int32, retain: Bool) throws {
        try check(payload.withUnsafeBytes { mosquitto_will_set(handle, topic, Int32($0.count), $0.baseAddress, qos, retain) },
                  "set the last will")
    }

    func setMaxInflight(_ n: Int) {
        _ = mosquitto_max_inflight_messages_set(handle, UInt32(n))
    }

    /// Starts a connection without waiting for the broker's answer (a `.connected` event
    /// follows). The host name is resolved here, blocking.
    /// - Returns: nil when the attempt started, else why it could not.
    func connect(host: String, port: Int, keepalive: Int) -> String? {
        let rc = mosquitto_connect_async(handle, host, Int32(port), Int32(keepalive))
        let cause = errno
        return rc == MOSQ_ERR_SUCCESS.rawValue ? nil : Self.describe(rc, errno: cause)
    }

    /// An MQTT 5 connection whose session outlives it (`session_expiry` seconds): libmosquitto
    /// takes CONNECT properties only in its blocking connect, so that runs on a helper thread
    /// while this one polls `stop` every 20 ms. On stop the helper keeps the client alive until
    /// its connect returns, then drops it; nothing else touches the client meanwhile.
    /// - Returns: nil when the connection was started, else why it could not be (or "stopped").
    func connectV5(host: String, port: Int, keepalive: Int, sessionExpiry: UInt32, stop: StopSignal) -> String? {
        final class Outcome: @unchecked Sendable {
            /// Guards `rc` and `cause`.
            let lock = NSLock()
            var rc: Int32?
            /// The helper thread's errno after the connect: errno is per thread, and this
            /// thread's says nothing about the helper's failed connect (it read "Success").
            var cause: Int32 = 0
        }
        let outcome = Outcome()
        // The owning thread only polls `outcome` until the helper is done: the handle is not
        // used by two threads at once.
        nonisolated(unsafe) let handle = self.handle
        let helper = Thread {
            var properties: OpaquePointer?
            _ = mosquitto_property_add_int32(&properties, Int32(MQTT_PROP_SESSION_EXPIRY_INTERVAL.rawValue), sessionExpiry)
            let rc = mosquitto_connect_bind_v5(handle, host, Int32(port), Int32(keepalive), nil, properties)
            let cause = errno
            mosquitto_property_free_all(&properties)
            outcome.lock.withLock { outcome.rc = rc; outcome.cause = cause }
        }
        helper.name = "locus-mqtt-connect"
        helper.start()
        while true {
            if let (rc, cause) = outcome.lock.withLock({ outcome.rc.map { ($0, outcome.cause) } }) {
                return rc == MOSQ_ERR_SUCCESS.rawValue ? nil : Self.describe(rc, errno: cause)
            }
            if stop.isSet { return "stopped" }
            Thread.sleep(forTimeInterval: 0.02)
        }
    }

    /// Runs libmosquitto's network loop once, waiting at most `timeoutMs` for the socket.
    /// - Returns: nil while connected, else why the connection is gone.
    func loop(timeoutMs: Int) -> String? {
        let rc = mosquitto_loop(handle, Int32(timeoutMs), 1)
        let cause = errno
        return rc == MOSQ_ERR_SUCCESS.rawValue ? nil : Self.describe(rc, errno: cause)
    }

    /// `loop(timeoutMs:)` that also returns as soon as `wakeFD` is readable: libmosquitto's own
    /// loop waits out its whole timeout even when there is something new to publish, which was
    /// up to 20 ms added to every event a sink forwarded. Only for a connected client without
    /// TLS (TLS may hold decrypted bytes the socket does not show): otherwise `loop(timeoutMs:)`.
    func loop(timeoutMs: Int, wakeFD: Int32) -> String? {
        let sock = mosquitto_socket(handle)
        guard sock >= 0 else { return loop(timeoutMs: timeoutMs) }
        var fds = [pollfd(fd: sock, events: Int16(POLLIN) | (mosquitto_want_write(handle) ? Int16(POLLOUT) : 0), revents: 0),
                   pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        _ = poll(&fds, 2, Int32(timeoutMs))
        var rc = MOSQ_ERR_SUCCESS.rawValue
        if fds[0].revents & Int16(POLLIN | POLLERR | POLLHUP) != 0 { rc = mosquitto_loop_read(handle, 1) }
        if rc == MOSQ_ERR_SUCCESS.rawValue, fds[0].revents & Int16(POLLOUT) != 0 || mosquitto_want_write(handle) {
            rc = mosquitto_loop_write(handle, 1)
        }
        if rc == MOSQ_ERR_SUCCESS.rawValue { rc = mosquitto_loop_misc(handle) }
        let cause = errno
        return rc == MOSQ_ERR_SUCCESS.rawValue ? nil : Self.describe(rc, errno: cause)
    }

    /// Queues one message (libmosquitto copies topic and payload). With MQTT 5, `userProperty`
    /// travels as a user property (name, value); MQTT 3.1.1 has none and it is not sent.
    /// - Returns: the message id, or the error code and its text.
    func publish(topic: String, payload: UnsafeRawBufferPointer, qos: Int32, retain: Bool,
                 userProperty: (String, String)? = nil) -> Result<Int32, MQTTPublishError> {
        var mid: Int32 = 0
        let rc: Int32
        if let (name, value) = userProperty, protocolVersion == 5 {
            var properties: OpaquePointer?
            _ = mosquitto_property_add_string_pair(&properties, Int32(MQTT_PROP_USER_PROPERTY.rawValue), name, value)
            rc = mosquitto_publish_v5(handle, &mid, topic, Int32(payload.count), payload.baseAddress, qos, retain, properties)
            mosquitto_property_free_all(&properties)
        } else {
            rc = mosquitto_publish(handle, &mid, topic, Int32(payload.count), payload.baseAddress, qos, retain)
        }
        let cause = errno
        if rc == MOSQ_ERR_SUCCESS.rawValue { return .success(mid) }
        return .failure(MQTTPublishError(code: rc, text: Self.describe(rc, errno: cause)))
    }

    /// Subscribes to `filter` (a `.message` event follows for each message).
    func subscribe(_ filter: String, qos: Int32) -> String? {
        let rc = mosquitto_subscribe(handle, nil, filter, qos)
        let cause = errno
        return rc == MOSQ_ERR_SUCCESS.rawValue ? nil : Self.describe(rc, errno: cause)
    }

    /// Sends DISCONNECT (the broker then does not publish the will).
    func disconnect() {
        _ = mosquitto_disconnect(handle)
    }

    /// The events since the last call, oldest first.
    func takeEvents() -> [Event] {
        defer { inbox.events.removeAll(keepingCapacity: true) }
        return inbox.events
    }

    /// Call with the libmosquitto call itself as `rc`: errno is read before anything else runs.
    private func check(_ rc: Int32, _ what: String) throws {
        let cause = errno
        guard rc == MOSQ_ERR_SUCCESS.rawValue else { throw MQTTError("cannot \(what): \(Self.describe(rc, errno: cause))") }
    }

    /// libmosquitto's text for a `MOSQ_ERR_*` code; for `MOSQ_ERR_ERRNO`, the system's text for
    /// `errno`, which the caller read on the thread that made the call, right after it
    /// (`mosquitto_strerror` would read this thread's errno, now). Never "Success": an errno of
    /// 0 says only that a system call failed.
    static func describe(_ rc: Int32, errno cause: Int32) -> String {
        if rc == MOSQ_ERR_ERRNO.rawValue {
            return cause == 0 ? "a system call failed (no errno kept)" : String(cString: strerror(cause))
        }
        return String(cString: mosquitto_strerror(rc))
    }

    /// The text for a CONNACK refusal: MQTT 5 reason codes are 0x80 and above, MQTT 3.1.1 return codes 1–5.
    static func describeRefusal(_ code: Int32) -> String {
        code >= 0x80 ? String(cString: mosquitto_reason_string(code)) : String(cString: mosquitto_connack_string(code))
    }
}

/// A configuration or setup failure of the MQTT client.
struct MQTTError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Why libmosquitto would not queue a message.
struct MQTTPublishError: Error {
    var code: Int32
    var text: String
    /// The broker's maximum packet size (MQTT 5) or libmosquitto's own limit is smaller than the message.
    var isOversize: Bool { code == MOSQ_ERR_OVERSIZE_PACKET.rawValue || code == MOSQ_ERR_PAYLOAD_SIZE.rawValue }
    var isNotConnected: Bool { code == MOSQ_ERR_NO_CONN.rawValue }
}
