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
        let thread = Thread {
            do { try forwarder.run(); done.finish(nil) } catch { done.finish(error) }
        }
        thread.name = "locus-mqtt"
        thread.start()
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

/// The end of a forwarder thread, awaited by the sink's task.
final class ThreadCompletion: @unchecked Sendable {
    private let lock = NSLock()
    private var result: Result<Void, Error>?
    private var waiter: CheckedContinuation<Void, Error>?

    var hasFinished: Bool { lock.withLock { result != nil } }

    func finish(_ error: Error?) {
        let r: Result<Void, Error> = error.map { .failure($0) } ?? .success(())
        let w: CheckedContinuation<Void, Error>? = lock.withLock {
            result = r
            defer { waiter = nil }
            return waiter
        }
        w?.resume(with: r)
    }

    func wait() async throws {
        try await withCheckedThrowingContinuation { (c: CheckedContinuation<Void, Error>) in
            let r: Result<Void, Error>? = lock.withLock {
                if result == nil { waiter = c }
                return result
            }
            if let r { c.resume(with: r) }
        }
    }
}

public enum MQTTPlugin {
    public static let factory = PluginFactory.sink(
        "mqtt", summary: "Publishes events to an MQTT broker, from the journal so nothing is lost while the broker is away.",
        config: MQTTSinkConfiguration.self
    ) { config, setup in
        let device = config.device ?? MQTTTopicTemplate.defaultDevice()
        var password: String?
        if !config.passwordFile.isEmpty {
            let path = setup.resolvePath(config.passwordFile)
            guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
                throw ConfigValueError(key: "password_file", "cannot read \(path)")
            }
            password = text.split(separator: "\n", omittingEmptySubsequences: false).first.map(String.init) ?? ""
        } else if !config.password.isEmpty {
            password = config.password
        }
        var resolved = config
        for (key, path) in [("tls_ca_file", config.tlsCAFile), ("tls_cert_file", config.tlsCertFile), ("tls_key_file", config.tlsKeyFile)]
        where !path.isEmpty {
            let full = setup.resolvePath(path)
            guard FileManager.default.isReadableFile(atPath: full) else {
                throw ConfigValueError(key: key, "cannot read \(full)")
            }
            switch key {
            case "tls_ca_file": resolved.tlsCAFile = full
            case "tls_cert_file": resolved.tlsCertFile = full
            default: resolved.tlsKeyFile = full
            }
        }
        let settings = MQTTForwarder.Settings(
            configuration: resolved, device: device,
            clientId: config.clientId ?? "locus-\(device)-\(setup.id)", password: password,
            journal: setup.journal,
            positionFile: setup.stateDirectory.map { ForwardPositionFile(path: "\($0)/\(setup.id).mqtt-position") },
            startedMs: Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)))
        return MQTTSink(configuration: resolved, settings: settings)
    }
}
