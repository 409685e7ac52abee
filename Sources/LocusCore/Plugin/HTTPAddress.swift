import Foundation

/// `host:port` an HTTP server listens on (`[::1]:9464` for IPv6): `hub.metrics`, the `web` sink.
public struct HTTPAddress: Sendable, Equatable {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    public var text: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }

    /// True for literal 127.0.0.0/8 and ::1 addresses and `localhost`; never for other names
    /// (`HostAddress.isLoopback`, the rule every endpoint follows).
    public var isLoopback: Bool { HostAddress.isLoopback(Substring(host)) }

    /// Parses `host:port`; the reason when it is not one.
    public static func parse(_ text: String, example port: String) -> Result<HTTPAddress, HTTPAddressError> {
        let example = "use host:port, such as \(port)"
        guard let (host, portText, bracketed) = HostAddress.split(Substring(text)) else {
            return .failure(HTTPAddressError("'\(text)' is not host:port; \(example)"))
        }
        guard !host.isEmpty else { return .failure(HTTPAddressError("'\(text)' has no host; \(example)")) }
        guard HostAddress.isValidHost(host), !bracketed || host.contains(":") else {
            return .failure(HTTPAddressError("'\(host)' in '\(text)' is not a host name or an IP address; \(example)"))
        }
        guard let port = HostAddress.port(portText) else {
            return .failure(HTTPAddressError("'\(text)': the port must be 1 to 65535; \(example)"))
        }
        return .success(HTTPAddress(host: String(host), port: port))
    }
}

public struct HTTPAddressError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ d: String) { description = d }
}
