import Foundation
import LocusCore
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle

/// `hub.metrics`: serves `GET /metrics` (the Prometheus exposition) over HTTP, through
/// Hummingbird, as one more service of the daemon's group. Anything else is 404.
/// Immutable after init: every stored property is a `let` of a `Sendable` type.
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
        } catch let error as IOError where error.errnoCode == EADDRINUSE {
            let busy = PortInUse(address: address.text, port: address.port, movedBy: ["change hub.metrics"])
            logger.error("cannot serve metrics", metadata: ["error": "\(busy)"])
            throw busy
        } catch {
            logger.error("cannot serve metrics", metadata: ["address": "\(address.text)", "error": "\(error)"])
            throw MetricsServerError(description: "cannot serve metrics on \(address.text): \(error)")
        }
    }
}

struct MetricsServerError: Error, CustomStringConvertible {
    var description: String
}

/// `host:port` of `hub.metrics` (`[::1]:9464` for IPv6): an `HTTPAddress` whose examples name
/// the metrics port.
public typealias MetricsAddress = HTTPAddress
public typealias MetricsAddressError = HTTPAddressError

extension HTTPAddress {
    /// Parses `hub.metrics`.
    public static func parse(_ text: String) -> Result<HTTPAddress, HTTPAddressError> { parse(text, example: "127.0.0.1:9464") }
}
