import Foundation
import LocusCore
import Logging
import Synchronization

/// Whether the daemon can keep what it must keep on disk (issue 49 item 8): the services' state
/// stores and the journal in the state directory.
///
/// Two ways to lose it:
/// - **At boot** the state directory cannot be written (a full disk, a read-only file system,
///   no permission): the daemon runs without the journal and with every service's state in
///   memory (`unavailable`), serving live events, and says so once on `status.locus.state`,
///   in the log at error level and as `degraded` in `locus ctl status`. It does not try again:
///   a restart once the disk has room puts the stores back.
/// - **While running** a service's commit fails (the disk filled up): the service restarts from
///   its last commit and the messages of the failed batches are lost, counted per service
///   (`commits_failed`, `inputs_lost_to_failed_commit`, `events_lost_to_failed_commit`). The
///   episode is said once on `status.locus.state` (`failed`) when the first service's commit
///   fails, and once (`running`) when every service that failed has committed again.
///
/// Called from the services' commit threads and read by the status request: one `Mutex`.
final class StateStoreHealth: Sendable {
    static let topic = "status.locus.state"

    /// What is known now.
    struct Snapshot: Sendable, Equatable {
        /// Why stores run in memory for this run (the state directory at boot, or a service's
        /// store that could not be opened), empty when every store is on disk.
        var unavailable: [String] = []
        /// Services whose last commit failed, with the error.
        var failing: [String: String] = [:]
        /// Episodes of failing commits so far (each said once on `status.locus.state`).
        var episodes: UInt64 = 0

        /// The `degraded` line of `locus ctl status`, nil when nothing is degraded.
        var degraded: String? {
            unavailable.isEmpty ? nil : "state store unavailable: " + unavailable.joined(separator: "; ")
                + " (running without the journal and the state stores: live events are served, nothing is kept across a restart; restart locus once the state directory can be written)"
        }
    }

    private let state = Mutex(Snapshot())
    private let publisher: EventPublisher?
    private let logger: Logger

    /// `publisher`: the runtime's own (producer `locus`); nil publishes nothing (tests).
    init(publisher: EventPublisher?, logger: Logger) {
        self.publisher = publisher
        self.logger = logger
    }

    var snapshot: Snapshot { state.withLock { $0 } }

    /// True once the state directory was found unwritable at boot: every service keeps its
    /// state in memory.
    var directoryUnavailable: Bool { state.withLock { !$0.unavailable.isEmpty && $0.unavailable[0].hasPrefix(Self.directoryPrefix) } }
    private static let directoryPrefix = "state directory "

    /// At boot: the state directory (or the journal in it) cannot be written.
    func stateDirectoryUnavailable(_ directory: String, reason: String) {
        let text = Self.directoryPrefix + "\(directory): \(reason)"
        state.withLock { $0.unavailable.insert(text, at: 0) }
        logger.error("the state directory cannot be written: running WITHOUT the journal and the state stores (services start from empty state and keep it in memory only; live events are served; catch-up and `locus sub --since` have nothing). It is not tried again: restart locus once the disk has room",
                     metadata: ["directory": "\(directory)", "reason": "\(reason)"])
        announce(.failed, "\(text); running without the journal and the state stores until restarted (live events are served, nothing is kept across a restart)")
    }

    /// At a service's first start: its store cannot be opened for writing; it keeps its state
    /// in memory for this run.
    func serviceStoreUnavailable(plugin: String, reason: String) {
        let text = "service \(plugin): \(reason)"
        let first = state.withLock { s -> Bool in
            defer { s.unavailable.append(text) }
            return s.unavailable.isEmpty
        }
        logger.error("a service's state store cannot be opened: the service runs with its state in memory only until locus is restarted",
                     metadata: ["plugin": "\(plugin)", "reason": "\(reason)"])
        if first { announce(.failed, "\(text); the service keeps its state in memory until locus is restarted") }
    }

    /// A commit of `plugin`'s state failed. The first of an episode is announced.
    func commitFailed(plugin: String, error: String) {
        let first = state.withLock { s -> Bool in
            let first = s.failing.isEmpty
            s.failing[plugin] = error
            if first { s.episodes += 1 }
            return first
        }
        guard first else { return }
        logger.error("a service's state cannot be committed: the service restarts from its last commit and the messages of the failed batches are lost (commits_failed, inputs_lost_to_failed_commit, events_lost_to_failed_commit count them)",
                     metadata: ["plugin": "\(plugin)", "error": "\(error)"])
        announce(.failed, "cannot commit the state of service \(plugin): \(error); services restart from their last commit and the messages of failed batches are lost (commits_failed, inputs_lost_to_failed_commit, events_lost_to_failed_commit count them)")
    }

    /// A commit of `plugin`'s state succeeded: the episode ends when no service is failing.
    func commitSucceeded(plugin: String) {
        let ended = state.withLock { s -> Bool in
            guard !s.failing.isEmpty, s.failing.removeValue(forKey: plugin) != nil else { return false }
            return s.failing.isEmpty
        }
        guard ended else { return }
        logger.notice("services commit their state again", metadata: ["plugin": "\(plugin)"])
        announce(.running, "committing again")
    }

    private func announce(_ state: PluginStatus.State, _ reason: String) {
        publisher?.publish(PluginStatus(plugin: "state", kind: "hub", pluginType: "state-store", state: state, reason: reason),
                           topic: Self.topic, time: .wallNow())
    }
}
