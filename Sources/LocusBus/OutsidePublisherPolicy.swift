import Foundation
import LocusCore

/// What publishers outside the process (ipc and tcp connections to the ingest socket) may not
/// publish: the topics and producer names of Locus's in-process plugins and of Locus itself, so
/// that nobody on the ingest socket can forge a `region.enter` as the region service or a
/// `status.` failure as `locus` — unless the config grants those topics (`allow_topics`) to an
/// ingest endpoint or to a CURVE client key. Out-of-process (`exec`) plugins are outside
/// publishers with topics and ids of their own, which are not reserved.
public struct OutsidePublisherPolicy: Sendable, Equatable {
    /// Topic prefixes only in-process plugins and Locus publish (`status.`, `clock.`, `region.`
    /// and every in-process plugin's `produces`).
    public var reservedTopics: [String] { didSet { reservedBytes = reservedTopics.map { Array($0.utf8) } } }
    private var reservedBytes: [[UInt8]]
    /// Producer names only they use (`locus`, `clock`, `hub`, in-process plugin ids); never
    /// accepted from outside.
    public var reservedProducers: Set<String>
    /// Reserved prefixes granted to every publisher of an ingest endpoint (keyed as configured).
    public var allowedByEndpoint: [String: [String]]
    /// Reserved prefixes granted to a CURVE client, by key name.
    public var allowedByClient: [String: [String]]

    public init(reservedTopics: [String], reservedProducers: Set<String>,
                allowedByEndpoint: [String: [String]] = [:], allowedByClient: [String: [String]] = [:]) {
        self.reservedTopics = reservedTopics
        reservedBytes = reservedTopics.map { Array($0.utf8) }
        self.reservedProducers = reservedProducers
        self.allowedByEndpoint = allowedByEndpoint
        self.allowedByClient = allowedByClient
    }

    /// nil if an outside publisher may publish this (valid) message; `connection` is asked only
    /// when a grant must be looked up, which is the rare case.
    func check(topic: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer, connection: () -> OutsideConnection) -> MessageRejection? {
        // An envelope whose producer cannot be read (valid JSON with, say, a number beyond
        // Double's range elsewhere, which Locus's own readers refuse) could hide any producer.
        guard let origin = EnvelopeOrigin.read(body) else {
            return MessageRejection(reason: .notJSON, detail: "an outside publisher's envelope whose producer and seq Locus cannot read (a number out of range?)")
        }
        if EnvelopeVia.isPresent(in: body) {
            return MessageRejection(reason: .reserved, detail: "an outside publisher's envelope carries 'via', which only the hub sets (from the CURVE key the message came with)")
        }
        if reservedProducers.contains(origin.producer) {
            return MessageRejection(reason: .reserved, detail: "producer '\(origin.producer)' is one of Locus's own; outside publishers use names of their own")
        }
        guard let prefix = reservedBytes.first(where: { Topic.hasPrefix(topic, $0) }).map({ String(decoding: $0, as: UTF8.self) }) else { return nil }
        let c = connection()
        let topicText = String(decoding: topic, as: UTF8.self)
        func grants(_ list: [String]?) -> Bool { list?.contains { Topic.hasPrefix(topic, Array($0.utf8)) } ?? false }
        if let user = c.user, grants(allowedByClient[user]) { return nil }
        if c.endpoints.contains(where: { grants(allowedByEndpoint[$0]) }) { return nil }
        let who = c.user.map { "client '\($0)'" } ?? "an outside publisher"
        return MessageRejection(reason: .reserved, detail: "\(who) published \(topicText): \(prefix) belongs to Locus's in-process plugins (grant it with allow_topics on the ingest endpoint)")
    }
}

/// Who an outside message came from: its CURVE key name and the ingest endpoints its
/// connection may have arrived on (found from the socket's local address).
struct OutsideConnection {
    var user: String?
    var endpoints: [String]

    init(fd: Int32, user: String?, ingestEndpoints: [String]) {
        self.user = user
        endpoints = LocalAddress.of(fd: fd).map { local in ingestEndpoints.filter { local.matches($0) } } ?? []
    }
}

/// The local end of an accepted connection, to tell which bound endpoint it came in on.
enum LocalAddress {
    case unix(path: String)
    case inet(host: String, port: Int)

    static func of(fd: Int32) -> LocalAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) == 0 }
        }
        guard ok else { return nil }
        switch Int32(storage.ss_family) {
        case AF_UNIX:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_un.self, capacity: 1) { un in
                    withUnsafeBytes(of: un.pointee.sun_path) { raw in
                        let bytes = raw.prefix { $0 != 0 }
                        return .unix(path: String(decoding: bytes, as: UTF8.self))
                    }
                }
            }
        case AF_INET:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { sin in
                    var a = sin.pointee.sin_addr
                    var text = [CChar](repeating: 0, count: Int(INET_ADDRSTRLEN))
                    inet_ntop(AF_INET, &a, &text, socklen_t(text.count))
                    return .inet(host: String(cString: text), port: Int(UInt16(bigEndian: sin.pointee.sin_port)))
                }
            }
        case AF_INET6:
            return withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { sin in
                    var a = sin.pointee.sin6_addr
                    var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
                    inet_ntop(AF_INET6, &a, &text, socklen_t(text.count))
                    return .inet(host: "[" + String(cString: text) + "]", port: Int(UInt16(bigEndian: sin.pointee.sin6_port)))
                }
            }
        default:
            return nil
        }
    }

    /// True if a connection with this local address may have come in on `endpoint` (as configured).
    func matches(_ endpoint: String) -> Bool {
        guard let parsed = try? Endpoint.validate(endpoint) else { return false }
        switch (self, parsed) {
        case (.unix(let path), .ipc(let p)):
            return path == p || (p.hasPrefix("/") == false && path.hasSuffix("/" + p))
        case (.inet(let host, let port), .tcp(let h, let p)):
            guard p == port else { return false }
            return h == "*" || h == "0.0.0.0" || h == "[::]" || h == host || (h == "localhost" && (host == "127.0.0.1" || host == "[::1]"))
        default:
            return false
        }
    }
}
