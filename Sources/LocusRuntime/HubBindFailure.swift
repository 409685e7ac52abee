import Foundation
import LocusBus
import LocusCore

/// A hub socket (an ingest or publish endpoint, `hub.control`, `hub.catchup`) whose TCP port
/// another process holds, said as `PortInUse`: libzmq's own "Address already in use" names
/// neither what holds the port nor what moves it.
enum HubBindFailure {
    /// `error` as `PortInUse` when it is a TCP bind that found its port in use; else unchanged.
    /// The key is the `hub` entry that lists the endpoint, and the variables are those the
    /// config file reads that give the port (the demo's `LOCUS_DEMO_PORT`).
    static func explained(_ error: Error, configuration: LocusConfiguration,
                          environment: [String: String] = ProcessInfo.processInfo.environment) -> Error {
        guard let z = error as? ZMQError, z.code == EADDRINUSE, let endpoint = z.endpoint,
              case .tcp(_, let port?)? = try? Endpoint.validate(endpoint) else { return error }
        let file = (configuration.file as NSString).lastPathComponent
        var movedBy: [String] = []
        if case .success(let text) = ConfigLoader.readText(configuration.file) {
            let names = EnvironmentSubstitution.variables(in: text, givingPort: port, environment: environment)
            movedBy += names.map { "set \($0) (\(file) reads the port from it)" }
        }
        movedBy.append("change \(key(holding: endpoint, in: configuration.hub)) in \(file)")
        return PortInUse(address: endpoint, port: port, movedBy: movedBy)
    }

    /// The `hub` key whose list holds `endpoint`.
    static func key(holding endpoint: String, in hub: HubSettings) -> String {
        if hub.control == endpoint { return "hub.control" }
        if hub.ingest.contains(endpoint) { return "hub.ingest" }
        if hub.catchup.contains(endpoint) { return "hub.catchup" }
        return "hub.publish"
    }
}
