import LocusCore
import Logging

/// How a `nats` source or sink tells that NATS fails it and that it works again: one log line
/// and one status (`disconnected` with the reason, then `connected`) per change, not per failed
/// request. Used from the plugin's own thread only.
final class NATSStatusReport {
    private let context: PluginContext
    private let servers: String
    private var reported: String?

    init(context: PluginContext, servers: [String]) {
        self.context = context
        self.servers = servers.joined(separator: ",")
    }

    /// A connection attempt or a request failed; `retryIn` when the next attempt waits.
    func failing(_ reason: String, retryIn: Double? = nil) {
        guard reported != reason else { return }
        var metadata: Logger.Metadata = ["servers": "\(servers)", "reason": "\(reason)"]
        if let retryIn { metadata["retry_in"] = "\(retryIn)" }
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
