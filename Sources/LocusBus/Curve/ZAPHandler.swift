import Foundation
import Logging

/// The ZeroMQ authentication handler (ZAP, RFC 27) of one `ZMQContext`: answers libzmq's
/// question "may this client key connect?" for every CURVE endpoint bound in that context.
///
/// Without a handler libzmq accepts *any* client key on a CURVE endpoint (the traffic is then
/// encrypted but anyone may read it), so `ZMQSocket.bind(_:curve:)` refuses to bind a CURVE
/// endpoint until this runs. Each CURVE endpoint has its own ZAP domain, and each domain its
/// `AuthorizedKeys`; a client is accepted when its public key is listed there, and its key's
/// name becomes its ZeroMQ user id (`User-Id` on its messages) and its name in logs and counters.
///
/// Start it before binding any server socket; it runs on its own thread with its own REP
/// socket at `inproc://zeromq.zap.01` (the address libzmq asks).
public final class ZAPHandler: @unchecked Sendable {
    /// The address RFC 27 fixes.
    public static let endpoint = "inproc://zeromq.zap.01"
    /// Distinct unknown keys logged (one line each) before further ones are only counted.
    static let maxLoggedUnknownKeys = 1000

    private let context: ZMQContext
    private let logger: Logger
    /// Guards `domains`, `stats` and `loggedUnknown`.
    private let lock = NSLock()
    private var domains: [String: AuthorizedKeys] = [:]
    private var stats = ZAPStatistics()
    private var loggedUnknown = Set<CurveKey>()
    private let worker = SocketWorker(thread: "locus-zap", for: "the ZAP handler")
    private var stopFlag: StopFlag { worker.stopFlag }

    public init(context: ZMQContext, logger: Logger) {
        self.context = context
        self.logger = logger
    }

    deinit { stop() }

    /// Accept, on the endpoints bound with ZAP domain `domain`, the keys in `keys`. Call
    /// before the endpoint is bound.
    public func authorize(domain: String, keys: AuthorizedKeys) {
        lock.withLock { domains[domain] = keys }
    }

    /// Binds the handler's socket and starts answering. Throws if the context already has a
    /// handler (only one may bind the address).
    public func start() throws {
        try worker.start { [self] startup in
            let socket: ZMQSocket
            do {
                socket = try ZMQSocket(context: context, type: .rep)
                try socket.setOption(.linger(milliseconds: 0))
                try socket.bind(Self.endpoint)
            } catch {
                startup.report(error)
                return
            }
            context.markZAPHandler(true)
            startup.report(nil)
            serve(socket)
            context.markZAPHandler(false)
            socket.close()
        }
    }

    /// Stops answering within ~100 ms. Idempotent.
    public func stop() { worker.stop() }

    /// Connections accepted per client name, and refusals.
    public var statistics: ZAPStatistics { lock.withLock { stats } }

    private func serve(_ socket: ZMQSocket) {
        do {
            while !stopFlag.isSet {
                guard let frames = try socket.receiveMultipart(timeoutMilliseconds: 100) else { continue }
                _ = try socket.send(reply(to: frames))
            }
        } catch let error as ZMQError where error.isContextTerminated {
            return
        } catch {
            logger.error("the CURVE authentication handler failed; CURVE clients can no longer connect", metadata: ["error": "\(error)"])
        }
    }

    /// RFC 27: [version, request id, domain, address, identity, mechanism, credentials...] →
    /// [version, request id, status code, status text, user id, metadata].
    func reply(to frames: [[UInt8]]) -> [[UInt8]] {
        let requestID = frames.count > 1 ? frames[1] : []
        func answer(_ code: String, _ text: String, user: String = "") -> [[UInt8]] {
            [Array("1.0".utf8), requestID, Array(code.utf8), Array(text.utf8), Array(user.utf8), []]
        }
        guard frames.count >= 6, frames[0] == Array("1.0".utf8) else {
            lock.withLock { stats.malformed += 1 }
            return answer("500", "malformed ZAP request")
        }
        let domain = String(decoding: frames[2], as: UTF8.self)
        let address = String(decoding: frames[3], as: UTF8.self)
        let mechanism = String(decoding: frames[5], as: UTF8.self)
        // libzmq 4.3 cannot clear a socket's ZAP domain once set, so a plain endpoint bound on
        // the same socket after a CURVE one asks too, with mechanism NULL. A NULL client never
        // gets this far on a CURVE endpoint (the handshake fails first), so NULL is the plain
        // endpoint's own traffic: accept it. (Sockets bind their plain endpoints first anyway.)
        if mechanism == "NULL" { return answer("200", "OK") }
        guard mechanism == "CURVE", frames.count == 7, let key = CurveKey(bytes: frames[6]) else {
            lock.withLock { stats.refused += 1 }
            return answer("400", "only CURVE clients are accepted here")
        }
        let keys = lock.withLock { domains[domain] }
        guard let keys else {
            lock.withLock { stats.refused += 1 }
            return answer("400", "no authorized keys for this endpoint")
        }
        let changed = keys.reloadIfChanged()
        if changed, !keys.problems.isEmpty {
            for problem in keys.problems.prefix(20) {
                logger.warning("an authorized key file was skipped", metadata: ["directory": "\(keys.directory)", "problem": "\(problem)"])
            }
        }
        if let name = keys.name(of: key) {
            lock.withLock { stats.accepted[name, default: 0] += 1 }
            logger.debug("CURVE client accepted", metadata: ["client": "\(name)", "endpoint": "\(domain)", "address": "\(address)"])
            return answer("200", "OK", user: name)
        }
        let first = lock.withLock { () -> Bool in
            stats.refused += 1
            guard loggedUnknown.count < Self.maxLoggedUnknownKeys else { return false }
            return loggedUnknown.insert(key).inserted
        }
        if first {
            // Logged once per key: a client retrying every 100 ms must not flood the log.
            logger.warning("refused a CURVE client whose key is not in authorized_keys (logged once per key)", metadata: [
                "endpoint": "\(domain)", "address": "\(address)", "public_key": "\(key.z85)", "authorized_keys": "\(keys.directory)"])
        }
        return answer("400", "key not authorized")
    }
}

/// What a `ZAPHandler` decided.
public struct ZAPStatistics: Sendable, Equatable {
    /// Connections accepted, per client key name.
    public var accepted: [String: UInt64] = [:]
    /// Connections refused: unknown key, or not a CURVE client.
    public var refused: UInt64 = 0
    /// Requests that were not ZAP 1.0 (never from libzmq itself).
    public var malformed: UInt64 = 0
}
