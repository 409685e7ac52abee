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

    /// True for 127.0.0.0/8, ::1 and localhost.
    public var isLoopback: Bool { host == "localhost" || host == "::1" || host.hasPrefix("127.") }

    /// Parses `host:port`; the reason when it is not one.
    public static func parse(_ text: String, example port: String) -> Result<HTTPAddress, HTTPAddressError> {
        let example = "use host:port, such as \(port)"
        var host: Substring, portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return .failure(HTTPAddressError("'\(text)' is not host:port; \(example)"))
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                return .failure(HTTPAddressError("'\(text)' is not host:port; \(example)"))
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { return .failure(HTTPAddressError("'\(text)' has no host; \(example)")) }
        guard let port = Int(portText), (1...65535).contains(port) else {
            return .failure(HTTPAddressError("'\(text)': the port must be 1 to 65535; \(example)"))
        }
        return .success(HTTPAddress(host: String(host), port: port))
    }
}

public struct HTTPAddressError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ d: String) { description = d }
}
