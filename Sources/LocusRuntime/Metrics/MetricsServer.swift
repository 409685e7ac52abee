import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// `hub.metrics`: serves `GET /metrics` (the Prometheus exposition) over HTTP, through
/// Hummingbird, as one more service of the daemon's group. Anything else is 404.
final class MetricsServer: Service, @unchecked Sendable {
    let address: MetricsAddress
    let render: @Sendable () -> [UInt8]
    let logger: Logger

    init(address: MetricsAddress, logger: Logger, render: @escaping @Sendable () -> [UInt8]) {
        self.address = address
        self.render = render
        self.logger = logger
    }

    func run() async throws {
        let router = Router()
        router.get("metrics") { [render] _, _ -> Response in
            Response(status: .ok, headers: [.contentType: MetricsExposition.contentType],
                     body: ResponseBody(byteBuffer: ByteBuffer(bytes: render())))
        }
        let logger = self.logger
        let address = self.address
        let app = Application(router: router,
                              configuration: .init(address: .hostname(address.host, port: address.port), serverName: "locus"),
                              onServerRunning: { channel in
                                  logger.info("serving metrics", metadata: ["url": "http://\(address.text)/metrics",
                                                                            "bound": "\(channel.localAddress.map { "\($0)" } ?? "?")"])
                              },
                              logger: logger)
        do {
            try await app.run()
        } catch {
            logger.error("cannot serve metrics", metadata: ["address": "\(address.text)", "error": "\(error)"])
            throw MetricsServerError(description: "cannot serve metrics on \(address.text): \(error)")
        }
    }
}

struct MetricsServerError: Error, CustomStringConvertible {
    var description: String
}

/// `host:port` of `hub.metrics` (`[::1]:9464` for IPv6).
public struct MetricsAddress: Sendable, Equatable {
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
    public static func parse(_ text: String) -> Result<MetricsAddress, MetricsAddressError> {
        let example = "use host:port, such as 127.0.0.1:9464"
        var host: Substring, portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return .failure(MetricsAddressError("'\(text)' is not host:port; \(example)"))
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                return .failure(MetricsAddressError("'\(text)' is not host:port; \(example)"))
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard !host.isEmpty else { return .failure(MetricsAddressError("'\(text)' has no host; \(example)")) }
        guard let port = Int(portText), (1...65535).contains(port) else {
            return .failure(MetricsAddressError("'\(text)': the port must be 1 to 65535; \(example)"))
        }
        return .success(MetricsAddress(host: String(host), port: port))
    }
}

public struct MetricsAddressError: Error, CustomStringConvertible, Sendable {
    public var description: String
    init(_ d: String) { description = d }
}
