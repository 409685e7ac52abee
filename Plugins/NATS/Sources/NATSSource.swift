import Foundation
import LocusCore
import LocusFleet
import LocusFormats
import LocusNATS
import Logging

/// Positions of many devices from a JetStream stream — OwnTracks phones publishing to NATS's MQTT
/// port, or other Locus instances' `nats` sinks — published as `obs.fix.<device>` with the
/// message's own time as event time. Malformed messages are counted by reason and skipped; the
/// source keeps running.
public struct NATSSource: SourcePlugin, ReportsCounters {
    public let configuration: NATSSourceConfiguration
    public let statistics = SourceCounters<NATSSourceCounters>()
    let connection: NATSConnectionSettings

    public var produces: [String] { ["obs.fix."] }
    public var reportedCounters: [String: UInt64] { statistics.counterValues }

    public func run(context: PluginContext) async throws {
        let stop = StopSignal()
        let done = ThreadCompletion()
        let reader = NATSReader(configuration: configuration, connection: connection, counters: statistics, context: context, stop: stop)
        startThread(named: "locus-nats-in", owning: reader) { reader in
            reader.run()
            done.finish(nil)
        }
        try await withTaskCancellationHandler {
            try await done.wait()
        } onCancel: {
            stop.set()
        }
    }
}

/// The `nats` source's thread: owns the connection and the consumer, (re)connects with backoff,
/// resumes after the last sequence read, and turns messages into fixes.
final class NATSReader {
    private let configuration: NATSSourceConfiguration
    private let settings: NATSConnectionSettings
    private let counters: SourceCounters<NATSSourceCounters>
    private let context: PluginContext
    private let stop: StopSignal
    private var devices: DeviceTable
    private var backoff: Double
    private var nextAttempt = Date()
    private var reportedDown: String?
    /// The stream sequence of the last message handled: where a new consumer starts after.
    private var lastSequence: UInt64?

    init(configuration: NATSSourceConfiguration, connection: NATSConnectionSettings, counters: SourceCounters<NATSSourceCounters>,
         context: PluginContext, stop: StopSignal) {
        self.configuration = configuration
        settings = connection
        self.counters = counters
        self.context = context
        self.stop = stop
        devices = DeviceTable(levels: configuration.deviceTokens, separator: ".", maxDevices: configuration.maxDevices,
                              maxRate: configuration.maxRate)
        backoff = configuration.server.reconnectMin
    }

    func run() {
        var connection: NATSConnection?
        var consumer: JetStreamPullConsumer?
        while !stop.isSet {
            if consumer == nil {
                guard Date() >= nextAttempt else { Thread.sleep(forTimeInterval: 0.05); continue }
                do {
                    let c = try connection ?? NATSConnection(settings)
                    if connection == nil { counters.update { $0.connects += 1 } }
                    connection = c
                    try c.ensureStream(JetStreamStreamSpec(name: configuration.stream, subjects: configuration.subjects,
                                                           replicas: configuration.replicas))
                    let start: JetStreamPullConsumer.Start = lastSequence.map { .after($0) } ?? (configuration.start == .all ? .all : .new)
                    consumer = try JetStreamPullConsumer(connection: c, stream: configuration.stream, filter: configuration.filter, start: start)
                    backoff = configuration.server.reconnectMin
                    reportedDown = nil
                    context.logger.info("reading positions from NATS", metadata: [
                        "servers": "\(settings.servers.joined(separator: ","))", "stream": "\(configuration.stream)",
                        "filter": "\(configuration.filter)"])
                    context.reportStatus(.connected, reason: nil)
                } catch {
                    if connection == nil { counters.update { $0.connectFailures += 1 } }
                    down("\(error)")
                    continue
                }
            }
            guard let reading = consumer else { continue }
            do {
                for message in try reading.fetch(batch: configuration.batch, timeoutMs: 200) {
                    handle(message)
                }
            } catch {
                // The consumer may be gone (the server restarted, or it timed out while NATS was
                // away): a new one starts after the last message handled.
                counters.update { $0.readRetries += 1 }
                consumer = nil
                down("\(error)")
            }
        }
    }

    private func down(_ reason: String) {
        nextAttempt = Date().addingTimeInterval(backoff)
        backoff = min(backoff * 2, configuration.server.reconnectMax)
        guard reportedDown != reason else { return }
        context.logger.warning("NATS unreachable or refusing; retrying", metadata: [
            "servers": "\(settings.servers.joined(separator: ","))", "reason": "\(reason)", "retry_in": "\(backoff)"])
        context.reportStatus(.disconnected, reason: reason)
        reportedDown = reason
    }

    private func handle(_ message: JetStreamMessage) {
        lastSequence = message.sequence
        counters.update {
            $0.messages += 1
            $0.pending = Int(message.pending)
            $0.lastSequence = Int(message.sequence)
        }
        let location: IncomingLocation
        switch message.payload.withUnsafeBytes({ IncomingLocation.read($0, format: configuration.format) }) {
        case .success(let l): location = l
        case .failure(let problem): counters.update { $0.count(problem) }; return
        }
        switch devices.admit(topic: message.subject, now: Date().timeIntervalSince1970, fixTime: location.time.seconds) {
        case .publish(let device):
            context.publish(location.fix(source: device), topic: "obs.fix.\(device)", time: location.time)
            let known = devices.count
            counters.update { $0.fixesPublished += 1; $0.devices = known }
        case .badDevice: counters.update { $0.droppedBadDevice += 1 }
        case .tooManyDevices: counters.update { $0.droppedTooManyDevices += 1 }
        case .rateLimited: counters.update { $0.droppedRateLimit += 1 }
        case .otherPartition: break  // no partition given: never
        }
    }
}
