import Foundation
import LocusCore
import LocusNMEA
import Logging

public enum NMEASerialPlugin {
    public static let factory = PluginFactory.source(
        "nmea-serial",
        summary: "NMEA 0183 receiver on a serial port (USB or UART): publishes its fixes and sky views.",
        config: NMEASerialConfiguration.self
    ) { config, setup in
        var config = config
        // A relative path means what it does for every other path of the config.
        if !config.device.hasPrefix("/") { config.device = setup.resolvePath(config.device) }
        if let problem = deviceProblem(config.device) { throw ConfigValueError(key: "device", problem) }
        return NMEASerialSource(id: setup.id, configuration: config)
    }

    /// Why `path` cannot be a serial port, or nil. A path that does not exist (yet) is fine: a
    /// USB receiver may be plugged in later, and the source opens it when it appears. Anything
    /// else that is not a character device (a recorded log, a directory) never will be one.
    static func deviceProblem(_ path: String) -> String? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        let kind = st.st_mode & S_IFMT
        guard kind != S_IFCHR else { return nil }
        let what = kind == S_IFREG ? "a regular file" : kind == S_IFDIR ? "a directory" : "not a character device"
        let hint = kind == S_IFREG ? "; to play a recorded NMEA log, use a replay source (type: replay, file: \(path))" : ""
        return "\(path) is \(what), not a serial device\(hint)"
    }
}

/// Counters of a running source, readable from any task (tests, diagnostics).
public struct NMEASerialCounters: ZeroedCounters, Equatable {
    /// Successful opens of the device.
    public var opens = 0
    public var bytes = 0
    public var fixesPublished = 0
    public var skyViewsPublished = 0
    /// Sentences published on `obs.nmea.<id>` (`publish_sentences`).
    public var sentencesPublished = 0
    /// Epochs dropped for want of a date (`undated_hold` passed): also among the daemon's drop
    /// counters (`<id>.undated`).
    public var droppedUndated = 0
    /// Decoder counters summed over all opens.
    public var decoder = NMEAStatistics()
    public init() {}
}

public typealias NMEASerialStatistics = SourceCounters<NMEASerialCounters>

/// Reads NMEA 0183 from a serial device and publishes fixes on `obs.fix.<id>` and sky views on
/// `obs.sky.<id>`, at the receiver's UTC time. Reopens a device that went away with a backoff
/// from 0.1 s to `reconnect_max` (at once when its path reappears) and reports `connected` /
/// `disconnected` / `no_data` on `status.<id>`, on changes only.
public struct NMEASerialSource: SourcePlugin {
    public let id: String
    public let configuration: NMEASerialConfiguration
    public let statistics: NMEASerialStatistics
    /// First reopen delay, seconds; doubles up to `reconnect_max`.
    public static let initialBackoff = 0.1
    /// Longest wait in one `poll`, milliseconds: the bound on shutdown latency.
    static let pollMilliseconds: Int32 = 100
    /// How often, while open, the device path is checked for removal or replacement.
    static let pathCheckInterval = Duration.milliseconds(250)

    public init(id: String, configuration: NMEASerialConfiguration, statistics: NMEASerialStatistics = NMEASerialStatistics()) {
        self.id = id
        self.configuration = configuration
        self.statistics = statistics
    }

    public var produces: [String] {
        ["obs.fix.\(id)", "obs.sky.\(id)"] + (configuration.publishSentences ? ["obs.nmea.\(id)"] : [])
    }

    /// Epochs held for a date at most (10 Hz × `undated_hold`'s maximum would be more: the
    /// time bound usually ends a wait first).
    static let undatedEpochsHeld = 10_000

    func decoderOptions(source: String) -> NMEADecoderOptions {
        var o = NMEADecoderOptions(source: source, framing: .init(acceptMissingChecksum: configuration.acceptMissingChecksum))
        o.dateFromClock = configuration.date == .system
        if configuration.undatedHold > 0 {
            o.holdUndatedEpochs = Self.undatedEpochsHeld
            o.holdUndatedSeconds = configuration.undatedHold
        }
        return o
    }

    public func run(context: PluginContext) async throws {
        var status = SerialStatusReporter(context: context)
        var backoff = NMEASerialSource.initialBackoff
        let device = configuration.device
        let fixTopic = "obs.fix.\(context.id)", skyTopic = "obs.sky.\(context.id)"
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 1)
        defer { buffer.deallocate() }

        while !Task.isCancelled {
            var reason: String
            var opened = false
            var receivedSentence = false
            do {
                let port = try SerialPort.open(path: device, baud: configuration.baud, framing: configuration.framing)
                defer { port.close() }
                opened = true
                statistics.update { $0.opens += 1 }
                context.logger.info("opened serial device", metadata: [
                    "device": "\(device)", "baud": "\(configuration.baud)", "framing": "\(configuration.framing)"])
                status.set(.connected, nil)
                for cmd in configuration.initCommands {
                    try port.write(Array((cmd + "\r\n").utf8))
                }
                (reason, receivedSentence) = readSentences(port, status: &status, context: context, buffer: buffer,
                                                           fixTopic: fixTopic, skyTopic: skyTopic)
            } catch {
                reason = "\(error)"
            }
            if Task.isCancelled { break }
            // A device that opens but fails before a valid sentence (flapping) keeps backing off.
            if receivedSentence { backoff = NMEASerialSource.initialBackoff }
            // Log the change at info; repeated failures while the device stays away at debug.
            let level: Logger.Level = (status.current == .disconnected && !opened) ? .debug : .info
            status.set(.disconnected, reason)
            context.logger.log(level: level, "serial device unavailable; retrying", metadata: [
                "device": "\(device)", "reason": "\(reason)", "retry_in": "\(backoff)"])
            // Sleep in poll-sized steps: prompt on cancellation, and cut short when the path appears
            // or changes (a receiver plugged back in), so it is opened within one step.
            let before = SerialPort.identity(of: device)
            let until = ContinuousClock.now + .milliseconds(Int64(backoff * 1000))
            var appeared = false
            while ContinuousClock.now < until && !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(NMEASerialSource.pollMilliseconds) * 1_000_000)
                let now = SerialPort.identity(of: device)
                if now != nil && now != before { appeared = true; break }
            }
            backoff = appeared ? NMEASerialSource.initialBackoff : min(backoff * 2, configuration.reconnectMax)
        }
        let c = statistics.counters
        context.logger.info("nmea-serial source stopped", metadata: [
            "device": "\(device)", "opens": "\(c.opens)", "bytes": "\(c.bytes)", "fixes": "\(c.fixesPublished)",
            "sky": "\(c.skyViewsPublished)", "bad_checksum": "\(c.decoder.framing.badChecksum)",
            "missing_checksum": "\(c.decoder.framing.missingChecksum)"])
    }

    /// Reads and decodes until the device goes away or the task is cancelled; returns why it
    /// ended and whether a valid sentence arrived.
    private func readSentences(_ port: SerialPort, status: inout SerialStatusReporter, context: PluginContext,
                               buffer: UnsafeMutableRawBufferPointer, fixTopic: String,
                               skyTopic: String) -> (reason: String, receivedSentence: Bool) {
        var decoder = NMEADecoder(options: decoderOptions(source: context.id))
        let sentenceTopic = "obs.nmea.\(context.id)"
        let noDataAfter = Duration.milliseconds(Int64(configuration.noDataTimeout * 1000))
        var lastSentence = ContinuousClock.now
        var lastPathCheck = ContinuousClock.now
        var sentences = 0
        var published = (fixes: 0, sky: 0)
        var undatedReported = 0, undatedCounted = 0
        func emit(_ o: NMEAObservation) {
            switch o {
            case .fix(let fix, let time):
                context.publish(fix, topic: fixTopic, time: time)
                published.fixes += 1
            case .sky(let sky, let time):
                context.publish(sky, topic: skyTopic, time: time)
                published.sky += 1
            }
        }
        func flush() {
            // The device is gone: the open epoch is complete as far as it will ever be.
            decoder.finish(emit: emit)
            let s = decoder.statistics
            // Epochs still waiting for a date are dropped with the decoder.
            let undated = max(0, s.fixesWithoutDate - undatedCounted)
            statistics.update {
                $0.fixesPublished += published.fixes
                $0.skyViewsPublished += published.sky
                $0.droppedUndated += undated
                $0.decoder.add(s)
            }
            published = (0, 0)
        }
        while true {
            if Task.isCancelled {
                flush()
                return ("cancelled", sentences > 0)
            }
            let now = ContinuousClock.now
            switch port.read(into: buffer, timeoutMilliseconds: NMEASerialSource.pollMilliseconds) {
            case .data(let n):
                let readAt = EventTime(seconds: Date().timeIntervalSince1970)
                decoder.setClock(readAt)
                let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<n])
                if configuration.publishSentences {
                    var passed = 0
                    decoder.feed(chunk, sentence: { bytes in
                        context.publish(NMEASentence(source: context.id, sentence: String(decoding: bytes, as: UTF8.self)),
                                        topic: sentenceTopic, time: readAt)
                        passed += 1
                    }, emit: emit)
                    statistics.update { $0.sentencesPublished += passed }
                } else {
                    decoder.feed(chunk, emit: emit)
                }
                let undated = decoder.statistics.fixesWithoutDate
                if undated > undatedCounted {
                    let more = undated - undatedCounted
                    statistics.update { $0.droppedUndated += more }
                    undatedCounted = undated
                }
                if undated != undatedReported {
                    // Told once per run of drops (the count in the reason), not per epoch.
                    if undatedReported == 0 || undated - undatedReported >= 60 {
                        let reason = "\(undated) epoch(s) without a date dropped: no RMC/ZDA date within \(configuration.undatedHold) s (date: system dates them from the clock)"
                        context.logger.warning("NMEA epochs without a date dropped", metadata: [
                            "device": "\(configuration.device)", "dropped": "\(undated)"])
                        status.note(.connected, reason)
                        undatedReported = undated
                    }
                }
                let total = decoder.statistics.framing.sentences
                statistics.update {
                    $0.bytes += n
                    $0.fixesPublished += published.fixes
                    $0.skyViewsPublished += published.sky
                }
                published = (0, 0)
                if total != sentences {
                    sentences = total
                    lastSentence = ContinuousClock.now
                    status.set(.connected, nil)
                }
            case .timeout:
                break
            case .gone(let why):
                flush()
                return (why, sentences > 0)
            }
            if now - lastPathCheck >= NMEASerialSource.pathCheckInterval {
                lastPathCheck = now
                if let problem = port.pathProblem() {
                    flush()
                    return (problem, sentences > 0)
                }
            }
            if ContinuousClock.now - lastSentence >= noDataAfter && status.current == .connected {
                status.set(.noData, "no complete NMEA sentence from \(configuration.device) for \(configuration.noDataTimeout) s")
            }
        }
    }
}

extension NMEAStatistics {
    /// Adds `o`'s counters to these.
    mutating func add(_ o: NMEAStatistics) {
        framing.sentences += o.framing.sentences
        framing.badChecksum += o.framing.badChecksum
        framing.missingChecksum += o.framing.missingChecksum
        framing.acceptedWithoutChecksum += o.framing.acceptedWithoutChecksum
        framing.overlong += o.framing.overlong
        framing.invalidCharacters += o.framing.invalidCharacters
        framing.truncated += o.framing.truncated
        framing.encapsulated += o.framing.encapsulated
        framing.comments += o.framing.comments
        framing.noise += o.framing.noise
        decoded += o.decoded
        proprietary += o.proprietary
        unsupported += o.unsupported
        outsideEpoch += o.outsideEpoch
        fixes += o.fixes
        skyViews += o.skyViews
        fixesWithFallbackDate += o.fixesWithFallbackDate
        fixesWithoutDate += o.fixesWithoutDate
        fixesDatedBackwards += o.fixesDatedBackwards
        fixesWithClockDate += o.fixesWithClockDate
        datesSeen += o.datesSeen
        midnightRollovers += o.midnightRollovers
    }
}

/// Reports status changes only (the runtime does not de-duplicate).
struct SerialStatusReporter {
    let context: PluginContext
    private(set) var current: PluginStatus.State?

    init(context: PluginContext) { self.context = context }

    mutating func set(_ state: PluginStatus.State, _ reason: String?) {
        guard state != current else { return }
        current = state
        context.reportStatus(state, reason: reason)
    }

    /// Reports `state` with `reason` even when the state is unchanged (news about the data,
    /// such as epochs dropped for want of a date).
    mutating func note(_ state: PluginStatus.State, _ reason: String) {
        current = state
        context.reportStatus(state, reason: reason)
    }
}

extension NMEASerialSource: ReportsCounters {
    public var reportedCounters: [String: UInt64] { statistics.counterValues }
}
