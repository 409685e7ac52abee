import Foundation
import LocusCore

public enum NATSPlugin {
    /// One type in both sections: a sink that stores events in a JetStream stream, a source that
    /// reads positions of many devices from one. Each kind has its own keys; a key of the other
    /// kind is refused where it is written.
    public static let factory: PluginFactory = {
        let sinkKeys = NATSSinkConfiguration.keys
        let sourceKeys = NATSSourceConfiguration.keys
        var keys = sinkKeys
        for key in sourceKeys where !keys.contains(where: { $0.name == key.name }) { keys.append(key) }
        let sinkNames = Set(sinkKeys.map(\.name))
        let sourceNames = Set(sourceKeys.map(\.name))
        return PluginFactory(type: "nats", kinds: [.sink, .source],
                             summary: "NATS JetStream: a sink storing events in a stream (de-duplicated by event), or a source of many devices' positions (OwnTracks through NATS's MQTT port, other Locus instances).",
                             keys: keys) { decoder, setup in
            let own = setup.kind == .source ? sourceNames : sinkNames
            let given = try decoder.container(keyedBy: NATSConfigKey.self).allKeys.map(\.stringValue)
            if let other = given.first(where: { !own.contains($0) && !["type", "id", "enabled"].contains($0) }) {
                throw ConfigValueError(key: other, "'\(other)' is a key of nats \(setup.kind == .source ? "sinks" : "sources"), not of a nats \(setup.kind.rawValue)")
            }
            let name = "locus-\(ProcessInfo.processInfo.hostName)-\(setup.id)"
            if setup.kind == .source {
                let config = try NATSSourceConfiguration(from: decoder)
                return .source(NATSSource(configuration: config, connection: try config.server.connection(name: name, setup: setup),
                                          memberId: config.member.flatMap { $0.isEmpty ? nil : $0 } ?? "\(ProcessInfo.processInfo.hostName)-\(setup.id)"))
            }
            let config = try NATSSinkConfiguration(from: decoder)
            return .sink(NATSSink(configuration: config, connection: try config.server.connection(name: name, setup: setup)))
        }
    }()
}

/// Any key of a plugin entry, to list the keys given.
struct NATSConfigKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
}
