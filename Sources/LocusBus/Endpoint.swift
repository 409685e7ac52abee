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

    /// Parses `text` or throws an `EndpointError` saying what is wrong with it: the one parser of
    /// ZeroMQ endpoints, for the hub, `locus check`, `locus ctl` and `locus sub` alike. Accepts
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
                throw fail("the ipc path is \(rest.utf8.count) bytes; Unix sockets allow at most \(maxIPCPathBytes) "
                    + "(use a shorter directory, e.g. set LOCUS_RUNTIME_DIR)")
            }
            guard !rest.hasSuffix("/") else { throw fail("the ipc path names a directory, not a socket file") }
            return .ipc(path: rest)
        case "tcp":
            return try parseTCP(rest, fail)
        default:
            throw fail("unsupported transport '\(scheme)' (use inproc, ipc or tcp)")
        }
    }

    /// `host:port` by `HostAddress`'s rules, as every address in Locus is read, plus what only a
    /// ZeroMQ bind takes: `*` for every interface, and port `*` for one the system picks.
    private static func parseTCP(_ rest: String, _ fail: (String) -> EndpointError) throws -> Parsed {
        let expected = "tcp://host:port, host '*', an IP address ([IPv6] in brackets) or a name, port 1 to 65535"
        guard let (host, portText, bracketed) = HostAddress.split(Substring(rest)) else {
            if rest.hasPrefix("[") && !rest.contains("]") { throw fail("unclosed '[' in the host; expected \(expected)") }
            if rest.filter({ $0 == ":" }).count > 1 && !rest.hasPrefix("[") {
                throw fail("an IPv6 address goes in brackets, as in tcp://[::1]:5556")
            }
            throw fail("a tcp endpoint needs host:port; expected \(expected)")
        }
        guard !host.isEmpty else { throw fail("a tcp endpoint needs a host (a name, an IP address or *)") }
        guard !portText.isEmpty else { throw fail("a tcp endpoint needs a port after the ':'; expected \(expected)") }
        let port: Int?
        if portText == "*" {
            port = nil
        } else {
            guard let p = HostAddress.port(portText) else {
                throw fail("the port must be a number from 1 to 65535, not '\(portText)'")
            }
            port = p
        }
        let valid = bracketed ? host.contains(":") && HostAddress.isValidHost(host)
            : host == "*" || HostAddress.isValidHost(host)
        let written = bracketed ? "[\(host)]" : String(host)
        guard valid else { throw fail("'\(written)' is not a host name, an IP address or *") }
        return .tcp(host: written, port: port)
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
