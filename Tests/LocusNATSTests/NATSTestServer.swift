import Foundation
import LocusNATS
import LocusTestKit

/// A nats-server for one test, in its own temporary directory, and a connection to it.
struct NATSTestServer {
    let server: NATSServer

    init() throws {
        server = try NATSServer(directory: temporaryPath("nats"))
        try server.start()
    }

    func connect(_ name: String = "locus-test") throws -> NATSConnection {
        try NATSConnection(NATSConnectionSettings(servers: [server.url], name: name))
    }
}
