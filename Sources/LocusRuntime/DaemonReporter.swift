import Foundation
import LocusBus
import LocusCore
import LocusStore

/// Reads a `DaemonReport` from the running parts of the daemon.
final class DaemonReporter: Sendable {
    let hub: Hub
    let control: ControlServer
    let status: StatusBoard
    let runners: StartedRunners
    let gate: DeliveryGate
    let journal: EventJournal?
    let catchup: CatchupServer?
    let zap: ZAPHandler?
    let restricted: [RestrictedPublisher]
    let started = ContinuousClock.now
    let exposition = MetricsExposition()

    /// The Prometheus exposition of a fresh report.
    func metrics() -> [UInt8] { exposition.render(report()) }

    init(hub: Hub, control: ControlServer, status: StatusBoard, runners: StartedRunners, gate: DeliveryGate,
         journal: EventJournal? = nil, catchup: CatchupServer? = nil, zap: ZAPHandler? = nil,
         restricted: [RestrictedPublisher] = []) {
        self.zap = zap
        self.restricted = restricted
        self.journal = journal
        self.catchup = catchup
        self.hub = hub
        self.control = control
        self.status = status
        self.runners = runners
        self.gate = gate
    }

    func report() -> DaemonReport {
        let plugins = status.snapshot.map { s -> DaemonReport.PluginReport in
            let runner = runners.runner(s.plugin)
            let tally = runner?.tally.snapshot
            return DaemonReport.PluginReport(status: s, received: runner?.received, sent: runner?.sendStatistics,
                                             published: tally?.published ?? 0, fixes: tally?.fixes ?? 0,
                                             lastFixAge: tally?.lastFixAge, lag: runner?.lag,
                                             counters: runner?.reportedCounters)
        }
        let up = started.duration(to: .now)
        return DaemonReport(hub: hub.statistics, control: control.statistics, plugins: plugins,
                            deliveryWaits: gate.waitCount,
                            uptime: Double(up.components.seconds) + Double(up.components.attoseconds) / 1e18,
                            journal: journal?.statistics, catchup: catchup?.statistics, curve: zap?.statistics,
                            restricted: Dictionary(uniqueKeysWithValues: restricted.map { ($0.endpoint, $0.statistics) }),
                            stateStore: status.stateStore.snapshot)
    }
}
