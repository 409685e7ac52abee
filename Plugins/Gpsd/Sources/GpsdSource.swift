import Foundation
import LocusCore
import Logging

public enum GpsdPlugin {
    public static let factory = PluginFactory.source(
        "gpsd",
        summary: "Client of a gpsd daemon: publishes its TPV reports as fixes and its SKY reports as sky views.",
        config: GpsdConfiguration.self
    ) { config, setup in
        GpsdSource(id: setup.id, configuration: config)
    }
}

/// Counters of a running source, readable from any task (tests, diagnostics).
public typealias GpsdStatistics = SourceCounters<GpsdCounters>

/// Connects to gpsd, asks for JSON reports (`?WATCH={"enable":true,"json":true}`) and publishes
/// TPV → `obs.fix.<id>`, SKY → `obs.sky.<id>`. Reconnects with exponential backoff and reports
/// `connected` / `disconnected` / `no_data` on `status.<id>` on changes.
public struct GpsdSource: SourcePlugin {
    public let id: String
    public let configuration: GpsdConfiguration
    public let statistics: GpsdStatistics
    /// Read as lines arrive, for the fix time check (`max_time_error`).
    let hostClock: HostClock
    /// First reconnect delay, seconds; doubles up to `reconnect_max`.
    public static let initialBackoff = 0.25
    static let watchCommand = "?WATCH={\"enable\":true,\"json\":true}\n"

    public init(id: String, configuration: GpsdConfiguration, statistics: GpsdStatistics = GpsdStatistics(),
                hostClock: HostClock = .system) {
        self.id = id
        self.configuration = configuration
        self.statistics = statistics
        self.hostClock = hostClock
    }

    public var produces: [String] { ["obs.fix.\(id)", "obs.sky.\(id)"] }

    public func run(context: PluginContext) async throws {
        var status = StatusReporter(context: context)
        var session = GpsdSession(source: context.id, device: configuration.device, maxTimeError: configuration.maxTimeError)
        var backoff = GpsdSource.initialBackoff
        let endpoint = "\(configuration.host):\(configuration.port)"
        while !Task.isCancelled {
            let reason: String
            var receivedData = false
            do {
                let conn = try await GpsdConnection.connect(host: configuration.host, port: configuration.port)
                defer { conn.close() }
                session.connectionStarted()
                statistics.update(session.counters)
                context.logger.info("connected to gpsd", metadata: ["endpoint": "\(endpoint)"])
                status.set(.connected, nil)
                try await conn.send(GpsdSource.watchCommand)
                reason = try await readReports(conn, session: &session, status: &status, context: context,
                                               receivedData: &receivedData)
            } catch is CancellationError {
                break
            } catch {
                reason = "\(error)"
            }
            if Task.isCancelled { break }
            statistics.update(session.counters)
            // Log the change at info; repeated failures while gpsd stays away at debug.
            let level: Logger.Level = status.current == .disconnected ? .debug : .info
            status.set(.disconnected, reason)
            if receivedData { backoff = GpsdSource.initialBackoff }
            context.logger.log(level: level, "gpsd unreachable or connection lost; retrying", metadata: [
                "endpoint": "\(endpoint)", "reason": "\(reason)", "retry_in": "\(backoff)"])
            do {
                try await Task.sleep(nanoseconds: UInt64(backoff * 1e9))
            } catch {
                break
            }
            backoff = min(backoff * 2, configuration.reconnectMax)
        }
        statistics.update(session.counters)
        let c = session.counters
        context.logger.info("gpsd source stopped", metadata: [
            "fixes": "\(c.fixesPublished)", "sky": "\(c.skyViewsPublished)", "malformed": "\(c.malformed)",
            "tpv_without_time": "\(c.tpvWithoutTime)", "other_device": "\(c.otherDevice)",
            "implausible_time": "\(c.implausibleTime)"])
    }

    /// Reads and handles reports until the connection ends; returns why it ended.
    private func readReports(_ conn: GpsdConnection, session: inout GpsdSession, status: inout StatusReporter,
                             context: PluginContext, receivedData: inout Bool) async throws -> String {
        var splitter = LineSplitter()
        var outputs: [GpsdSession.Output] = []
        let chunk = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 64 * 1024)
        defer { chunk.deallocate() }
        let noDataAfter = Duration.milliseconds(Int64(configuration.noDataTimeout * 1000))
        var lastTPV = ContinuousClock.now
        var malformedLogged = 0
        var oversizedSeen = 0
        while true {
            if Task.isCancelled { throw CancellationError() }
            switch conn.read(into: UnsafeMutableRawBufferPointer(chunk)) {
            case .data(let n):
                receivedData = true
                var sawTPV = false
                session.hostTime = hostClock.read()
                let implausibleBefore = session.implausibleTime
                splitter.feed(UnsafeBufferPointer(rebasing: chunk[0..<n])) { line in
                    switch session.handle(line: line, into: &outputs) {
                    case .tpvSeen: sawTPV = true
                    case .malformed(let why):
                        malformedLogged += 1
                        if malformedLogged <= 5 {
                            let text = String(decoding: line.prefix(200), as: UTF8.self)
                            context.logger.warning("skipping malformed gpsd line", metadata: ["reason": "\(why)", "line": "\(text)"])
                        }
                    case .version(let v): context.logger.info("gpsd version", metadata: ["release": "\(v)"])
                    case .devices(let paths):
                        context.logger.info("gpsd devices", metadata: ["devices": "\(paths)"])
                        if let d = configuration.device, !paths.contains(d) {
                            context.logger.warning("configured device not known to gpsd (yet)", metadata: ["device": "\(d)"])
                        }
                    case .gpsdError(let m): context.logger.warning("gpsd reported an error", metadata: ["message": "\(m)"])
                    case .none: break
                    }
                }
                for o in outputs {
                    switch o {
                    case .fix(let fix, let time): context.publish(fix, topic: "obs.fix.\(context.id)", time: time)
                    case .sky(let sky, let time): context.publish(sky, topic: "obs.sky.\(context.id)", time: time)
                    }
                }
                outputs.removeAll(keepingCapacity: true)
                if splitter.oversized != oversizedSeen {
                    // The splitter counts per connection; the session's counter is cumulative.
                    session.counters.oversized += splitter.oversized - oversizedSeen
                    oversizedSeen = splitter.oversized
                }
                statistics.update(session.counters)
                if let why = session.implausibleTime, why != implausibleBefore {
                    // Times only: a fix's position is never logged at info or above.
                    context.logger.warning("gpsd gave a fix with an implausible date", metadata: ["reason": "\(why)"])
                }
                if sawTPV {
                    lastTPV = ContinuousClock.now
                    status.set(.connected, session.implausibleTime)
                }
            case .wouldBlock:
                try await Task.sleep(nanoseconds: GpsdConnection.pollInterval)
            case .closed:
                return "gpsd closed the connection"
            case .failed(let why):
                return "read from gpsd failed: \(why)"
            }
            if ContinuousClock.now - lastTPV >= noDataAfter && status.current != .noData {
                let which = configuration.device.map { " from \($0)" } ?? ""
                status.set(.noData, "no TPV report\(which) for \(configuration.noDataTimeout) s")
            }
        }
    }
}

/// Reports status changes only (the runtime does not de-duplicate). A `connected` source is
/// reported again when its reason changes: a reason there is a warning about the data (fix
/// dates that are implausible), and its end is reported as `connected` without one.
struct StatusReporter {
    let context: PluginContext
    private(set) var current: PluginStatus.State?
    private var reason: String?

    init(context: PluginContext) { self.context = context }

    mutating func set(_ state: PluginStatus.State, _ reason: String?) {
        guard state != current || (state == .connected && reason != self.reason) else { return }
        current = state
        self.reason = reason
        context.reportStatus(state, reason: reason)
    }
}

extension GpsdSource: ReportsCounters {
    public var reportedCounters: [String: UInt64] { statistics.counterValues }
}
