import Foundation
import LocusCore
import LocusFleet
import LocusFormats
import Logging

/// Positions of many devices from an MQTT broker — OwnTracks phones (`owntracks/+/+`) or other
/// Locus instances' `mqtt` sinks — published as `obs.fix.<device>` with the message's own time
/// as event time, for per-device services on a server. Malformed messages are counted by
/// reason and skipped; the source keeps running.
public struct MQTTSource: SourcePlugin, ReportsCounters {
    public let configuration: MQTTSourceConfiguration
    public let statistics = SourceCounters<MQTTSourceCounters>()
    let clientId: String
    let password: String?

    public var produces: [String] { ["obs.fix."] }

    public var reportedCounters: [String: UInt64] { statistics.counterValues }

    public func run(context: PluginContext) async throws {
        let stop = StopSignal()
        let done = ThreadCompletion()
        let reader = MQTTSourceThread(configuration: configuration, clientId: clientId, password: password,
                                      counters: statistics, context: context, stop: stop)
        startThread(named: "locus-mqtt-in", owning: reader) { reader in
            do { try reader.run(); done.finish(nil) } catch { done.finish(error) }
        }
        try await withTaskCancellationHandler {
            try await done.wait()
        } onCancel: {
            stop.set()
        }
    }
}

/// The `mqtt` source's thread: owns the libmosquitto client, (re)connects with backoff,
/// subscribes on each connection and turns messages into fixes.
final class MQTTSourceThread {
    private let configuration: MQTTSourceConfiguration
    private let clientId: String
    private let password: String?
    private let counters: SourceCounters<MQTTSourceCounters>
    private let context: PluginContext
    private let stop: StopSignal
    private var devices: DeviceTable
    private var backoff: Double
    private var reportedDown: String?
    private let ignoredTopics: [MQTTTopicFilter]

    init(configuration: MQTTSourceConfiguration, clientId: String, password: String?, counters: SourceCounters<MQTTSourceCounters>,
         context: PluginContext, stop: StopSignal) {
        self.configuration = configuration
        self.clientId = clientId
        self.password = password
        self.counters = counters
        self.context = context
        self.stop = stop
        devices = DeviceTable(levels: configuration.deviceLevels, maxDevices: configuration.maxDevices, maxRate: configuration.maxRate,
                              partition: MQTTSourceConfiguration.parsePartition(configuration.partition))
        backoff = configuration.connection.reconnectMin
        ignoredTopics = configuration.ignoreTopics.map(MQTTTopicFilter.init)
    }

    private var endpointText: String { configuration.connection.brokerText }

    func run() throws {
        let persistent = configuration.sessionExpiry > 0
        let client = try configuration.connection.makeClient(clientId: clientId, cleanSession: !persistent, password: password)
        var up = false
        var connecting = false
        var nextAttempt = Date()
        func down(_ reason: String, failedAttempt: Bool) {
            if failedAttempt { counters.update { $0.connectFailures += 1 } } else if up { counters.update { $0.disconnects += 1 } }
            up = false
            connecting = false
            nextAttempt = Date().addingTimeInterval(backoff)
            if reportedDown != reason {
                context.logger.warning("MQTT broker unreachable or connection lost; retrying", metadata: [
                    "broker": "\(endpointText)", "reason": "\(reason)", "retry_in": "\(backoff)"])
                context.reportStatus(.disconnected, reason: reason)
                reportedDown = reason
            }
            backoff = min(backoff * 2, configuration.connection.reconnectMax)
        }
        while !stop.isSet {
            if !up && !connecting {
                if Date() < nextAttempt { Thread.sleep(forTimeInterval: 0.05); continue }
                // MQTT 5 says how long the session outlives the connection in CONNECT; 3.1.1's
                // clean_session false keeps it as long as the broker is configured to.
                let failure = persistent && configuration.connection.protocolVersion == .v5
                    ? client.connectV5(host: configuration.connection.host, port: configuration.connection.effectivePort, keepalive: configuration.connection.keepalive,
                                       sessionExpiry: UInt32(configuration.sessionExpiry), stop: stop)
                    : client.connect(host: configuration.connection.host, port: configuration.connection.effectivePort, keepalive: configuration.connection.keepalive)
                if stop.isSet { break }
                if let failure {
                    down(failure, failedAttempt: true)
                    continue
                }
                connecting = true
            }
            let lost = client.loop(timeoutMs: 50)
            var refused = false
            for event in client.takeEvents() {
                switch event {
                case .connected(let code) where code == 0:
                    up = true
                    connecting = false
                    backoff = configuration.connection.reconnectMin
                    reportedDown = nil
                    counters.update { $0.connects += 1 }
                    for filter in configuration.subscriptionFilters {
                        if let failure = client.subscribe(filter, qos: Int32(configuration.qos)) {
                            context.logger.error("cannot subscribe", metadata: ["filter": "\(filter)", "reason": "\(failure)"])
                        }
                    }
                    context.logger.info("connected to the MQTT broker", metadata: [
                        "broker": "\(endpointText)", "subscribe": "\(configuration.subscriptionFilters.joined(separator: " "))"])
                    context.reportStatus(.connected, reason: nil)
                case .connected(let code):
                    let why = "the broker refused the connection: \(MosquittoClient.describeRefusal(code))"
                    if reportedDown != why {
                        context.logger.error("MQTT broker refused the connection; check username, password, client id and TLS settings",
                                             metadata: ["broker": "\(endpointText)", "reason": "\(MosquittoClient.describeRefusal(code))"])
                    }
                    client.disconnect()
                    down(why, failedAttempt: true)
                    refused = true
                case .message(let topic, let payload, _):
                    handle(topic: topic, payload: payload)
                case .disconnected, .published:
                    break
                }
            }
            if let lost, !refused, up || connecting { down(lost, failedAttempt: !up) }
        }
        if up { client.disconnect(); _ = client.loop(timeoutMs: 10) }
    }

    private func handle(topic: String, payload: [UInt8]) {
        counters.update { $0.messages += 1 }
        if ignoredTopics.contains(where: { $0.matches(topic) }) {
            counters.update { $0.ignoredTopic += 1 }
            return
        }
        // Read first: the limits apply to positions, and garbage is counted as what it is.
        let location: IncomingLocation
        switch payload.withUnsafeBytes({ IncomingLocation.read($0, format: configuration.format) }) {
        case .success(let l): location = l
        case .failure(let problem): counters.update { $0.count(problem) }; return
        }
        switch devices.admit(topic: topic, now: Date().timeIntervalSince1970, fixTime: location.time.seconds) {
        case .publish(let device):
            context.publish(location.fix(source: device), topic: "obs.fix.\(device)", time: location.time)
            let known = devices.count
            counters.update { $0.fixesPublished += 1; $0.devices = known }
        case .badDevice: counters.update { $0.droppedBadDevice += 1 }
        case .tooManyDevices: counters.update { $0.droppedTooManyDevices += 1 }
        case .rateLimited: counters.update { $0.droppedRateLimit += 1 }
        case .otherPartition: counters.update { $0.otherPartition += 1 }
        }
    }
}
