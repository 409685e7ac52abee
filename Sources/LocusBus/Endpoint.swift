import LocusCore

/// Checks endpoint strings before they reach libzmq, whose own errors ("Invalid argument")
/// do not say what is wrong.
public enum Endpoint {
    /// An endpoint taken apart.
    public enum Parsed: Sendable, Equatable {
        /// `inproc://name`: threads of one process sharing a `ZMQContext`.
        case inproc(name: String)
        /// `ipc://path`: a Unix domain socket; absolute or relative to the working directory,
        /// `@name` for Linux's abstract namespace, `*` for a name libzmq picks.
        case ipc(path: String)
        /// `tcp://host:port`; `port` is nil for `*` (bind picks one; see `ZMQSocket.lastEndpoint`).
        case tcp(host: String, port: Int?)

        /// The socket file an ipc endpoint creates, if it creates one.
        public var ipcFilePath: String? {
            guard case .ipc(let path) = self, !path.hasPrefix("@"), path != "*" else { return nil }
            return path
        }
    }

    /// Longest ipc path: `sun_path` holds 108 bytes including the terminating NUL.
    public static let maxIPCPathBytes = 107

    /// Parses `text` or throws an `EndpointError` saying what is wrong with it. Accepts
    /// `inproc://name`, `ipc:///absolute/path`, `ipc://relative/path`, `ipc://@abstract`,
    /// and `tcp://host:port` with host a name, an IPv4 address, `[IPv6]` or `*`, and port
    /// 1–65535 or `*`.
    @discardableResult
    public static func validate(_ text: String) throws -> Parsed {
        func fail(_ reason: String) -> EndpointError { EndpointError(endpoint: text, reason: reason) }
        guard let schemeEnd = text.range(of: "://") else {
            throw fail("expected inproc://name, ipc:///path or tcp://host:port")
        }
        let scheme = String(text[..<schemeEnd.lowerBound])
        let rest = String(text[schemeEnd.upperBound...])
        if rest.utf8.contains(0) { throw fail("contains a NUL byte") }
        switch scheme {
        case "inproc":
            guard !rest.isEmpty else { throw fail("an inproc endpoint needs a name") }
            return .inproc(name: rest)
        case "ipc":
            guard !rest.isEmpty else { throw fail("an ipc endpoint needs a path") }
            guard rest.utf8.count <= maxIPCPathBytes else {
                throw fail("the ipc path is \(rest.utf8.count) bytes; Unix sockets allow at most \(maxIPCPathBytes)")
            }
            guard !rest.hasSuffix("/") else { throw fail("the ipc path names a directory, not a socket file") }
            return .ipc(path: rest)
        case "tcp":
            return try parseTCP(rest, fail)
        default:
            throw fail("unsupported transport '\(scheme)' (use inproc, ipc or tcp)")
        }
    }

    private static func parseTCP(_ rest: String, _ fail: (String) -> EndpointError) throws -> Parsed {
        guard let colon = rest.lastIndex(of: ":") else { throw fail("a tcp endpoint needs host:port") }
        let host = String(rest[..<colon])
        let portText = String(rest[rest.index(after: colon)...])
        let port: Int?
        if portText == "*" {
            port = nil
        } else {
            guard !portText.isEmpty, portText.utf8.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let p = Int(portText), (1...65535).contains(p) else {
                throw fail("the port must be a number from 1 to 65535 (or * to pick one), not '\(portText)'")
            }
            port = p
        }
        guard !host.isEmpty else { throw fail("a tcp endpoint needs a host (a name, an IP address or *)") }
        guard isValidHost(host) else { throw fail("'\(host)' is not a host name, an IP address or *") }
        return .tcp(host: host, port: port)
    }

    /// `*`, `[IPv6]`, or what `HostAddress.isValidHost` takes.
    static func isValidHost(_ host: String) -> Bool {
        if host == "*" { return true }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return false }
            let inner = host.dropFirst().dropLast()
            return inner.contains(":") && HostAddress.isValidHost(inner)
        }
        return !host.contains(":") && HostAddress.isValidHost(Substring(host))
    }

    /// True for a tcp endpoint whose host is loopback by `HostAddress.isLoopback`'s rule.
    public static func isLoopback(_ text: String) -> Bool {
        guard case .tcp(let host, _)? = try? validate(text) else { return false }
        return HostAddress.isLoopback(Substring(host))
    }
}

/// Why an endpoint string was refused.
public struct EndpointError: Error, CustomStringConvertible, Sendable, Equatable {
    public var endpoint: String
    public var reason: String
    public var description: String { "invalid endpoint '\(endpoint)': \(reason)" }
}
