import Foundation
import LocusCore

public enum NATSPlugin {
    /// One type in both sections: a sink that stores events in a JetStream stream, a source that
    /// reads positions of many devices from one.
    public static let factory = PluginFactory.sourceAndSink(
        "nats",
        summary: "NATS JetStream: a sink storing events in a stream (de-duplicated by event), or a source of many devices' positions (OwnTracks through NATS's MQTT port, other Locus instances), shared by a group of servers that take over each other's partitions.",
        source: NATSSourceConfiguration.self, sink: NATSSinkConfiguration.self,
        makeSource: { config, setup in
            NATSSource(configuration: config, connection: try config.server.connection(name: connectionName(setup), setup: setup),
                       memberId: config.member.flatMap { $0.isEmpty ? nil : $0 } ?? "\(ProcessInfo.processInfo.hostName)-\(setup.id)")
        },
        makeSink: { config, setup in
            NATSSink(configuration: config, connection: try config.server.connection(name: connectionName(setup), setup: setup))
        })

    /// The connection's name in nats-server's monitoring (`/connz`).
    static func connectionName(_ setup: PluginSetup) -> String { "locus-\(ProcessInfo.processInfo.hostName)-\(setup.id)" }
}
