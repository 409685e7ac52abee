import LocusCore
import Logging

/// How a `nats` source or sink tells that NATS fails it and that it works again: one log line
/// and one status (`disconnected` with the reason, then `connected`) per change, not per failed
/// request. Used from the plugin's own thread only.
///
/// The first `startupWait` seconds after the plugin starts are the normal wait for NATS: a
/// cluster started with Locus elects its JetStream leaders, and a stream or bucket just created
/// answers its first requests only once it has one (they time out meanwhile). Failures then are
/// said once at info level, without a status change; one that lasts past the wait is warned.
final class NATSStatusReport {
    /// Seconds after start during which failing requests are the normal start-up wait.
    static let startupWait = 30.0
    private let context: PluginContext
    private let servers: String
    private var reported: String?
    private let quietUntil: ContinuousClock.Instant
    private var waitSaid = false
    private let startupWait: Double

    init(context: PluginContext, servers: [String], startupWait: Double = NATSStatusReport.startupWait) {
        self.context = context
        self.servers = servers.joined(separator: ",")
        self.startupWait = startupWait
        quietUntil = .now + .milliseconds(Int64(startupWait * 1000))
    }

    /// A connection attempt or a request failed; `retryIn` when the next attempt waits.
    /// `connected` is false when no server of the cluster could be reached at all (refused, no
    /// route): that is said at once, start-up or not.
    func failing(_ reason: String, retryIn: Double? = nil, connected: Bool = true) {
        guard reported != reason else { return }
        var metadata: Logger.Metadata = ["servers": "\(servers)", "reason": "\(reason)"]
        if let retryIn { metadata["retry_in"] = "\(retryIn)" }
        if connected, ContinuousClock.now < quietUntil {
            if !waitSaid {
                context.logger.info("waiting for NATS to answer (usual while a cluster starts or a stream or bucket is created); warned if it lasts past \(Int(startupWait)) s after start",
                                    metadata: metadata)
                waitSaid = true
            }
            return
        }
        context.logger.warning(retryIn == nil ? "a NATS request failed; retrying" : "NATS unreachable or refusing; retrying", metadata: metadata)
        context.reportStatus(.disconnected, reason: reason)
        reported = reason
    }

    /// Connected (again): said each time, with what the plugin does now.
    func connected(_ message: Logger.Message, _ metadata: Logger.Metadata) {
        reported = nil
        context.logger.info(message, metadata: metadata.merging(["servers": "\(servers)"]) { a, _ in a })
        context.reportStatus(.connected, reason: nil)
    }

    /// Requests succeed again after `failing`.
    func working() {
        guard reported != nil else { return }
        reported = nil
        context.logger.info("NATS requests succeed again", metadata: ["servers": "\(servers)"])
        context.reportStatus(.connected, reason: nil)
    }
}
