import Foundation
import LocusCore
import LocusFormats
import LocusStore
import Logging

/// The `mqtt` sink's thread: owns the libmosquitto client, connects and reconnects with
/// backoff, and sends journal records from the sink's saved position (and live messages of
/// topics the journal does not take) while the broker is there, at most `max_inflight`
/// unacknowledged at a time. While the broker is away the journal keeps the events, so they
/// are sent in order when it returns — after a restart of Locus too.
final class MQTTForwarder {
    struct Settings {
        var configuration: MQTTSinkConfiguration
        var device: String
        var clientId: String
        var password: String?
        var journal: JournalLocation?
        var positionFile: ForwardPositionFile?
        /// When the daemon read its config (ms since the epoch): with `start: end` and no saved
        /// position, records appended from then on are sent, earlier ones are not.
        var startedMs: Int64
    }

    private let settings: Settings
    private var configuration: MQTTSinkConfiguration { settings.configuration }
    private let inbox: ForwarderInbox
    private let counters: SourceCounters<MQTTSinkCounters>
    private let logger: Logger
    private let report: (PluginStatus.State, String?) -> Void
    private let template: MQTTTopicTemplate
    private let statusTopic: String?
    private let forwardPrefixes: [String]
    private var ownTracks: OwnTracksFormat?
    private let ownTracksBase: String

    private var client: MosquittoClient!
    private var window = DeliveryWindow(readNext: 0)
    private var reader: JournalReader?
    private var position = JournalPosition.oldest
    private var journalPending = true
    private var savedIndex: UInt64?
    private var lastSave = Date.distantPast
    private var state = LinkState.down
    private var nextAttempt = Date()
    private var backoff: Double
    private var reportedDown: String?
    private var shownRefusal: String?

    private enum LinkState { case down, connecting, up }

    /// The MQTT 5 user property that carries a message's journal index.
    static let journalIndexProperty = "locus-journal-index"

    init(settings: Settings, inbox: ForwarderInbox, counters: SourceCounters<MQTTSinkCounters>, logger: Logger,
         report: @escaping (PluginStatus.State, String?) -> Void) {
        self.settings = settings
        self.inbox = inbox
        self.counters = counters
        self.logger = logger
        self.report = report
        template = MQTTTopicTemplate(settings.configuration.topicTemplate, device: settings.device)
        let status = settings.configuration.statusTopic
        statusTopic = status.isEmpty ? nil : MQTTTopicTemplate(status, device: settings.device).render(topic: "", producer: "")
        forwardPrefixes = settings.configuration.topics
        if settings.configuration.format == .owntracks {
            let tid = settings.configuration.trackerId ?? String(settings.device.prefix(2))
            ownTracks = OwnTracksFormat(trackerId: tid, unknownAccuracy: settings.configuration.unknownAccuracy)
        }
        ownTracksBase = MQTTTopicTemplate(settings.configuration.ownTracksTopic, device: settings.device).render(topic: "", producer: "")
        backoff = settings.configuration.connection.reconnectMin
    }

    /// Runs until the inbox has ended and what could be sent was sent (or the broker is away).
    /// - Throws: `MQTTError` for a setup that cannot work (bad TLS files, an unreadable position file).
    func run() throws {
        client = try makeClient()
        try openJournal()
        var drainDeadline: Date?
        while true {
            let now = Date()
            if inbox.hasEnded {
                if drainDeadline == nil { drainDeadline = now.addingTimeInterval(3) }
                if state != .up || now >= drainDeadline! || isDrained() { break }
            }
            if state == .down, now >= nextAttempt { startConnecting() }
            if state == .down {
                let wait = max(0.01, min(0.2, nextAttempt.timeIntervalSince(now)))
                if inbox.wait(seconds: wait) { journalPending = true }
            } else {
                let lost = state == .up && configuration.connection.tlsCAFile.isEmpty && inbox.wakeFD >= 0
                    ? client.loop(timeoutMs: 20, wakeFD: inbox.wakeFD) : client.loop(timeoutMs: 20)
                if inbox.takeWake() { journalPending = true }
                // Events first: a refused CONNACK also ends the loop with an error, which must
                // not count (or report) the same failed attempt twice.
                handleEvents()
                if let lost { linkLost(lost) }
            }
            handleEvents()
            if state == .up { pump() }
            savePosition(force: false)
        }
        finish()
    }

    // MARK: Connection

    private func makeClient() throws -> MosquittoClient {
        let c = try configuration.connection.makeClient(clientId: settings.clientId, cleanSession: true, password: settings.password)
        if let statusTopic { try c.setWill(topic: statusTopic, payload: statusPayload(online: false), qos: 1, retain: true) }
        c.setMaxInflight(configuration.maxInflight)
        return c
    }

    private func statusPayload(online: Bool) -> [UInt8] {
        var w = JSONWriter(capacity: 64)
        w.beginObject()
        w.key("device"); w.string(settings.device)
        w.key("online"); w.bool(online)
        w.endObject()
        return w.bytes
    }

    private var endpointText: String { configuration.connection.brokerText }

    private func startConnecting() {
        if let failure = client.connect(host: configuration.connection.host, port: configuration.connection.effectivePort, keepalive: configuration.connection.keepalive) {
            attemptFailed(failure)
        } else {
            state = .connecting
        }
    }

    private func attemptFailed(_ reason: String) {
        counters.update { $0.connectFailures += 1 }
        goDown(reason)
    }

    private func linkLost(_ reason: String) {
        switch state {
        case .up:
            counters.update { $0.disconnects += 1 }
            goDown(reason)
        case .connecting:
            attemptFailed(reason)
        case .down:
            break
        }
    }

    private func goDown(_ reason: String) {
        state = .down
        nextAttempt = Date().addingTimeInterval(backoff)
        // A changed reason is news (info); the same one again while the broker stays away is not.
        if reportedDown != reason {
            logger.warning("MQTT broker unreachable or connection lost; events wait in the journal", metadata: [
                "broker": "\(endpointText)", "reason": "\(reason)", "retry_in": "\(backoff)"])
            report(.disconnected, reason)
            reportedDown = reason
        } else {
            logger.debug("MQTT broker still unreachable", metadata: ["broker": "\(endpointText)", "retry_in": "\(backoff)"])
        }
        backoff = min(backoff * 2, configuration.connection.reconnectMax)
    }

    private func handleEvents() {
        for event in client.takeEvents() {
            switch event {
            case .connected(let code) where code == 0:
                state = .up
                backoff = configuration.connection.reconnectMin
                reportedDown = nil
                shownRefusal = nil
                journalPending = true
                counters.update { $0.connects += 1 }
                logger.info("connected to the MQTT broker", metadata: ["broker": "\(endpointText)", "client_id": "\(settings.clientId)"])
                report(.connected, nil)
                if let statusTopic {
                    statusPayload(online: true).withUnsafeBytes { _ = client.publish(topic: statusTopic, payload: $0, qos: 1, retain: true) }
                }
            case .connected(let code):
                let why = "the broker refused the connection: \(MosquittoClient.describeRefusal(code))"
                if shownRefusal != why {
                    logger.error("MQTT broker refused the connection; check username, password, client id and TLS settings",
                                 metadata: ["broker": "\(endpointText)", "reason": "\(MosquittoClient.describeRefusal(code))"])
                    shownRefusal = why
                }
                client.disconnect()
                _ = client.takeEvents()
                attemptFailed(why)
                return
            case .disconnected(let code, let cause):
                if state != .down { linkLost(code == 0 ? "disconnected" : "connection lost (\(MosquittoClient.describe(code, errno: cause)))") }
            case .published(let mid, let reason):
                guard window.acknowledge(mid: mid) else { continue }
                if reason >= 0x80 {
                    counters.update { $0.droppedByBroker += 1 }
                    logger.warning("the MQTT broker refused a message", metadata: [
                        "reason": "\(MosquittoClient.describeRefusal(reason))"])
                } else {
                    counters.update { $0.acknowledged += 1 }
                }
            case .message:
                break   // the sink subscribes to nothing
            }
        }
    }

    // MARK: Sending

    private func forwards(_ topic: String) -> Bool {
        forwardPrefixes.contains { topic.hasPrefix($0) } && !configuration.exclude.contains { topic.hasPrefix($0) }
    }
    private func retains(_ topic: String) -> Bool { configuration.retain.contains { topic.hasPrefix($0) } }

    private enum SendOutcome { case sent, skipped, stop }

    private func send(topic: String, body: UnsafeRawBufferPointer, index: UInt64?) -> SendOutcome {
        guard body.count <= configuration.maxPayloadBytes else {
            counters.update { $0.droppedTooLarge += 1 }
            return .skipped
        }
        if ownTracks != nil {
            guard let message = ownTracks!.convert(topic: topic, body: body) else {
                counters.update { $0.notConverted += 1 }
                return .skipped
            }
            return message.json.withUnsafeBytes {
                publish(on: ownTracksBase + message.topicSuffix, payload: $0, retain: retains(topic), index: index)
            }
        }
        let mqttTopic = template.render(topic: topic, producer: EnvelopeOrigin.read(body)?.producer ?? "unknown")
        return publish(on: mqttTopic, payload: body, retain: retains(topic), index: index)
    }

    private func publish(on mqttTopic: String, payload: UnsafeRawBufferPointer, retain: Bool, index: UInt64?) -> SendOutcome {
        // The journal index identifies the event for good (seq restarts at 1 with Locus): an
        // MQTT 5 consumer de-duplicates QoS 1's repeats by it.
        switch client.publish(topic: mqttTopic, payload: payload, qos: Int32(configuration.qos), retain: retain,
                              userProperty: index.map { (MQTTForwarder.journalIndexProperty, String($0)) }) {
        case .success(let mid):
            window.sent(mid: mid, index: index)
            counters.update { $0.published += 1 }
            return .sent
        case .failure(let e) where e.isOversize:
            counters.update { $0.droppedTooLarge += 1 }
            return .skipped
        case .failure(let e):
            // Not connected any more (or out of memory): try again after the reconnect.
            if !e.isNotConnected { logger.warning("cannot hand a message to libmosquitto", metadata: ["reason": "\(e.text)"]) }
            return .stop
        }
    }

    private func pump() {
        let limit = configuration.maxInflight
        while window.inFlight < limit, let live = inbox.popLive() {
            let outcome = live.body.withUnsafeBytes { send(topic: live.topic, body: $0, index: nil) }
            if outcome == .stop { inbox.unpopLive(live); return }
        }
        guard let reader, journalPending, window.inFlight < limit else { return }
        let requested = position.index
        var firstSeen: UInt64?
        var stopped = false
        let outcome = reader.read(from: position) { entry in
            if firstSeen == nil { firstSeen = entry.index }
            guard window.inFlight < limit else { return false }
            let topic = String(decoding: entry.topic, as: UTF8.self)
            guard forwards(topic) else { window.passed(entry.index); return true }
            switch send(topic: topic, body: entry.body, index: entry.index) {
            case .sent: return true
            case .skipped: window.passed(entry.index); return true
            case .stop: stopped = true; return false
            }
        }
        if outcome.truncated, let firstSeen, firstSeen > requested {
            let lost = firstSeen - max(requested, 1)
            counters.update { $0.droppedRetention += Int(lost) }
            logger.warning("journal records were deleted (retention) before the MQTT broker took them", metadata: ["lost": "\(lost)"])
        }
        if outcome.damaged > 0 { counters.update { $0.journalDamaged += outcome.damaged } }
        if let firstSeen, !outcome.truncated, firstSeen > window.readNext { window.jump(to: firstSeen) }
        position = outcome.next
        window.jump(to: outcome.next.index)
        // Nothing more to read until a wake-up, unless the window cut the read short.
        journalPending = !outcome.reachedEnd && !stopped
    }

    private func isDrained() -> Bool {
        window.inFlight == 0 && inbox.liveCount == 0 && (reader == nil || !journalPending)
    }

    // MARK: Journal position

    private func openJournal() throws {
        guard let journal = settings.journal else { return }
        let r = JournalReader(directory: journal.directory)
        reader = r
        if let saved = try settings.positionFile?.load() {
            position = JournalPosition(index: saved)
            logger.info("continuing from the saved journal position", metadata: ["index": "\(saved)"])
        } else if configuration.start == .oldest {
            position = .oldest
        } else {
            // Only what this run of the daemon journals: skip the records of earlier runs.
            position = r.firstPosition(appendedSince: settings.startedMs)
        }
        window = DeliveryWindow(readNext: position.index)
        savePosition(force: true)
    }

    private func savePosition(force: Bool) {
        guard let file = settings.positionFile, reader != nil else { return }
        let index = window.deliveredThrough
        guard index != savedIndex, force || Date().timeIntervalSince(lastSave) >= 1 else { return }
        if let failure = file.save(index) {
            logger.warning("cannot save the MQTT sink's journal position", metadata: ["reason": "\(failure)"])
        } else {
            savedIndex = index
        }
        lastSave = Date()
    }

    private func finish() {
        let left = inbox.liveCount
        if left > 0 {
            counters.update { $0.droppedAtShutdown += left }
            logger.warning("live messages not sent before the stop (the journal keeps the rest for the next start)",
                           metadata: ["dropped": "\(left)"])
        }
        if state == .up {
            if let statusTopic {
                statusPayload(online: false).withUnsafeBytes { _ = client.publish(topic: statusTopic, payload: $0, qos: 1, retain: true) }
            }
            let deadline = Date().addingTimeInterval(1)
            while Date() < deadline, client.loop(timeoutMs: 20) == nil {
                handleEvents()
                if window.inFlight == 0 { break }
            }
            client.disconnect()
            _ = client.loop(timeoutMs: 10)
            _ = client.takeEvents()   // our own disconnect: nothing to report
        }
        savePosition(force: true)
        client = nil
    }
}
