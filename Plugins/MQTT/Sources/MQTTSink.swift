import Foundation
import LocusCore
import Logging

/// Forwards events to an MQTT broker (Mosquitto, EMQX, HiveMQ, …) so that a fleet's events meet
/// in one place. Records of topics the daemon journals are sent from the journal at the sink's
/// saved position: while the broker is away they wait there, and are sent in order when it
/// returns, across a restart of Locus too. Other topics (raw observations, by default not
/// journalled) are held in a bounded queue and counted when dropped.
public struct MQTTSink: SinkPlugin, ReportsCounters {
    public let configuration: MQTTSinkConfiguration
    public let statistics = SourceCounters<MQTTSinkCounters>()
    let settings: MQTTForwarder.Settings

    init(configuration: MQTTSinkConfiguration, settings: MQTTForwarder.Settings) {
        self.configuration = configuration
        self.settings = settings
    }

    public var subscriptions: [String] { configuration.topics }

    public var reportedCounters: [String: UInt64] { statistics.counterValues }

    public func run(messages: AsyncStream<BusMessage>, context: PluginContext) async throws {
        let inbox = ForwarderInbox(limit: configuration.queueLimit)
        let forwarder = MQTTForwarder(settings: settings, inbox: inbox, counters: statistics, logger: context.logger) {
            context.reportStatus($0, reason: $1)
        }
        let done = ThreadCompletion()
        startThread(named: "locus-mqtt", owning: forwarder) { forwarder in
            do { try forwarder.run(); done.finish(nil) } catch { done.finish(error) }
        }
        let journal = settings.journal
        var warnedFull = false
        let exclude = configuration.exclude
        for await message in messages {
            if exclude.contains(where: { message.topic.hasPrefix($0) }) { continue }
            if let journal, journal.takes(message.topic) {
                inbox.wake()
            } else if !inbox.push(.init(topic: message.topic, body: message.body)) {
                statistics.update { $0.droppedQueueFull += 1 }
                if !warnedFull {
                    context.logger.warning("MQTT queue full: live messages (topics not journalled) are dropped until the broker takes them",
                                           metadata: ["queue_limit": "\(configuration.queueLimit)"])
                    warnedFull = true
                }
            } else {
                warnedFull = false
            }
            if done.hasFinished { break }
        }
        inbox.end()
        try await done.wait()
    }
}

public enum MQTTPlugin {
    /// One type in both sections: a sink that publishes events to a broker, a source that reads
    /// positions of many devices from one. Each kind has its own keys; a key of the other kind is
    /// refused where it is written.
    public static let factory = PluginFactory.sourceAndSink(
        "mqtt",
        summary: "MQTT: a sink publishing events to a broker from the journal (nothing lost while it is away), or a source of many devices' positions (OwnTracks, other Locus instances).",
        source: MQTTSourceConfiguration.self, sink: MQTTSinkConfiguration.self,
        makeSource: { try makeSource($0, $1) }, makeSink: { try makeSink($0, $1) })

    static func makeSource(_ config: MQTTSourceConfiguration, _ setup: PluginSetup) throws -> MQTTSource {
        var resolved = config
        let password: String?
        (resolved.connection, password) = try config.connection.resolved(setup)
        return MQTTSource(configuration: resolved, clientId: config.clientId ?? "locus-\(MQTTTopicTemplate.defaultDevice())-\(setup.id)",
                          password: password)
    }

    static func makeSink(_ config: MQTTSinkConfiguration, _ setup: PluginSetup) throws -> MQTTSink {
        let device = config.device ?? MQTTTopicTemplate.defaultDevice()
        var resolved = config
        let password: String?
        (resolved.connection, password) = try config.connection.resolved(setup)
        let settings = MQTTForwarder.Settings(
            configuration: resolved, device: device,
            clientId: config.clientId ?? "locus-\(device)-\(setup.id)", password: password,
            journal: setup.journal,
            positionFile: setup.stateDirectory.map { ForwardPositionFile(path: "\($0)/\(setup.id).mqtt-position") },
            startedMs: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
        return MQTTSink(configuration: resolved, settings: settings)
    }
}
