import Foundation
import LocusBus
import LocusCore
import LocusStore
import Logging
import ServiceLifecycle
import UnixSignals

/// What `locus run` runs: the hub, the control socket, a supervised runner per plugin, and the
/// wall clock ticker, as one `ServiceGroup` that shuts down gracefully on SIGTERM and SIGINT.
///
/// Order matters. Everything is bound and every service and sink is subscribed (and confirmed
/// at the hub) before the first source starts, so nothing published early is missed. The group
/// shuts down in reverse: ticker and sources stop first, services drain, sinks drain, the hub
/// and control socket close last.
public final class Daemon: @unchecked Sendable {
    public let configuration: LocusConfiguration
    public let registry: PayloadRegistry
    let logger: Logger
    public let commands = ControlCommands()
    /// Seconds a control request waits for a service to take its command (it may be behind on
    /// its messages) before the error reply. Below the control socket's own 10 s limit, so the
    /// requester hears which service was slow.
    public let serviceCommandTimeout: Double
    /// Guards `group` and `shutdownRequested`.
    private let groupLock = NSLock()
    private var group: ServiceGroup?
    private var shutdownRequested = false

    public init(configuration: LocusConfiguration, registry: PayloadRegistry, logger: Logger,
                serviceCommandTimeout: Double = 5) {
        self.configuration = configuration
        self.registry = registry
        self.logger = logger
        self.serviceCommandTimeout = serviceCommandTimeout
    }

    /// Shuts the daemon down gracefully, as SIGTERM would (for embedding and tests). Before `run`
    /// has started its group, `run` shuts down as soon as it has.
    public func shutdown() async {
        let group: ServiceGroup? = groupLock.withLock {
            shutdownRequested = true
            return self.group
        }
        await group?.triggerGracefulShutdown()
    }

    /// Runs until SIGTERM/SIGINT (or until `shutdownSignals` is empty and every service returns).
    public func run(shutdownSignals: [UnixSignal] = [.sigterm, .sigint]) async throws {
        let context = ZMQContext()
        // Started in order, stopped in reverse by one teardown: the "hub" service's at shutdown,
        // or this defer when anything fails before the group runs.
        let parts = StartedParts()
        defer { parts.stopAll() }
        SharedStateDirectoryNotice.tell(configuration.hub, logger: logger)
        let wired: DaemonBus
        do {
            wired = try DaemonBus.start(configuration, registry: registry, context: context, commands: commands,
                                        logger: logger, parts: parts)
        } catch {
            throw HubBindFailure.explained(error, configuration: configuration)
        }
        let bus = HubAttachment(context: context, hub: wired.hub, registry: registry,
                                highWaterMark: configuration.hub.limits.highWaterMark,
                                subscriptionBuffer: configuration.hub.runtime.subscriptionBuffer, logger: logger)
        let statusOutlet = try bus.makeOutlet(for: "locus")
        parts.started { statusOutlet.close() }
        let status = StatusBoard(publisher: EventPublisher(producer: "locus", outlet: statusOutlet),
                                 logger: Logger(label: "locus.status"))
        if let problem = wired.stateDirectoryProblem {
            status.stateStore.stateDirectoryUnavailable(configuration.hub.stateDirectory, reason: problem)
        }
        let started = StartedRunners()
        let gate = DeliveryGate(window: configuration.hub.deliveryWindow, logger: Logger(label: "locus.delivery"))
        let reporter = DaemonReporter(hub: wired.hub, control: wired.control, status: status, runners: started, gate: gate,
                                      journal: wired.journal, catchup: wired.catchup, zap: wired.zap, restricted: wired.restricted)
        registerCommands(reporter: reporter)
        // For plugins that serve HTTP themselves (the web sink's /metrics).
        DaemonMetrics.install(.init(contentType: MetricsExposition.contentType) { reporter.metrics() })
        defer { DaemonMetrics.install(nil) }

        var runners: [PluginRunner] = []
        // Sinks and services first: their subscriptions must be live before any source publishes.
        for plugin in configuration.plugins where plugin.kind == .sink {
            runners.append(try PluginRunner(plugin: plugin, bus: bus, status: status, gate: gate))
        }
        for plugin in configuration.plugins where plugin.kind == .service {
            runners.append(try PluginRunner(plugin: plugin, bus: bus, status: status, gate: gate))
        }
        for plugin in configuration.plugins where plugin.kind == .source {
            runners.append(try PluginRunner(plugin: plugin, bus: bus, status: status, gate: gate))
        }
        registerServiceCommands(runners)
        let deviceStates = ServiceDeviceStates(services: runners.filter { $0.plugin.kind == .service },
                                               sinks: runners.filter { $0.plugin.kind == .sink })
        if !deviceStates.isEmpty {
            for r in runners where r.plugin.kind == .source { r.deviceStates = deviceStates }
        }
        started.set(runners)
        var services: [ServiceGroupConfiguration.ServiceConfiguration] = [
            .init(service: ClosingService { parts.stopAll() },
                  successTerminationBehavior: .ignore, failureTerminationBehavior: .gracefullyShutdownGroup,
                  serviceName: "hub"),
        ]
        services.append(.init(service: DropReportService(interval: configuration.hub.runtime.statusInterval, publisher: status.publisher,
                                                         logger: Logger(label: "locus.drops")) { reporter.report() },
                              successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore, serviceName: "drops"))
        if let address = configuration.hub.metrics {
            let metricsLogger = Logger(label: "locus.metrics")
            if !address.isLoopback {
                metricsLogger.warning("metrics are served beyond loopback: anyone who can reach it sees every plugin's counters",
                                      metadata: ["address": "\(address.text)"])
            }
            // A port that cannot be bound stops the daemon, as an endpoint of the hub does.
            services.append(.init(service: MetricsServer(address: address, logger: metricsLogger) { reporter.metrics() },
                                  successTerminationBehavior: .ignore, failureTerminationBehavior: .gracefullyShutdownGroup,
                                  serviceName: "metrics"))
        }
        for r in runners {
            services.append(.init(service: r, successTerminationBehavior: .ignore,
                                  failureTerminationBehavior: .ignore, serviceName: r.plugin.id))
        }
        // Sources are stopped together, so shutdown takes the longest stop time, not the sum;
        // so are plugins that run as a task of their own whatever their section (an `exec`
        // program listed under services or sinks builds a source instance): stopped one after
        // another they overran the group's budget and outlived the hub.
        let sourceRunners = runners.filter { runner in
            if case .source = runner.plugin.instance { return true }
            return false
        }
        if !sourceRunners.isEmpty {
            services.append(.init(service: SourcesStopper(sourceRunners), successTerminationBehavior: .ignore,
                                  failureTerminationBehavior: .ignore, serviceName: "sources"))
        }
        let clockDriven = configuration.plugins.contains { p in
            if case .source(let s) = p.instance { return s.drivesClock }
            return false
        }
        if !clockDriven {
            let tickOutlet = try bus.makeOutlet(for: "clock")
            let ticker = WallClockTicker(interval: configuration.hub.runtime.tickInterval,
                                         publisher: EventPublisher(producer: "clock", outlet: tickOutlet))
            services.append(.init(service: ClosingService(wrapping: ticker) { tickOutlet.close() },
                                  successTerminationBehavior: .ignore, failureTerminationBehavior: .ignore,
                                  serviceName: "clock"))
        }
        logger.info("locus running", metadata: [
            "config": "\(configuration.file)",
            "plugins": "\(configuration.plugins.count)",
            "publish": "\(configuration.hub.publish.joined(separator: ","))",
            "ingest": "\(configuration.hub.ingest.joined(separator: ","))",
            "control": "\(configuration.hub.control)",
        ])
        var groupConfig = ServiceGroupConfiguration(services: services, gracefulShutdownSignals: shutdownSignals,
                                                    cancellationSignals: [], logger: logger)
        // Past the graceful period the group cancels every service, and past the cancellation
        // budget ServiceLifecycle aborts the process: both must cover the slowest source's stop
        // (an exec plugin's stop_timeout between SIGTERM and SIGKILL, and reaping). A plugin
        // runner abandons its plugin at its own stop budget (stop_timeout + 1 s), well before.
        let slowestStop = configuration.plugins.map { p -> Double in
            if case .source(let s) = p.instance { return s.stopTimeout }
            return 0
        }.max() ?? 0
        groupConfig.maximumGracefulShutdownDuration = .milliseconds(Int64((1.5 + slowestStop) * 1000))
        groupConfig.maximumCancellationDuration = .milliseconds(Int64((PluginRunner.stopBudgetMargin + 2 + slowestStop) * 1000))
        let group = ServiceGroup(configuration: groupConfig)
        let stopAtOnce = groupLock.withLock {
            self.group = group
            return shutdownRequested
        }
        if stopAtOnce { await group.triggerGracefulShutdown() }
        try await group.run()
        logger.info("locus stopped")
    }

    /// Registers every command a configured `CommandableService` answers, routed to its runner.
    func registerServiceCommands(_ runners: [PluginRunner]) {
        let timeout = serviceCommandTimeout
        let answerers = runners.filter { !$0.commands.isEmpty }.map { runner in
            ServiceCommandRouter.Answerer(id: runner.plugin.id, commands: runner.commands) { command, arguments in
                try await runner.perform(command: command, arguments: arguments, timeout: timeout)
            }
        }
        let router = ServiceCommandRouter(answerers, reserved: Set(commands.names),
                                          pluginIDs: Set(configuration.plugins.map(\.id)))
        for (service, command) in router.shadowed {
            logger.warning("a service command has the name of a runtime command and is not routed", metadata: [
                "plugin": "\(service)", "command": "\(command)",
            ])
        }
        router.register(in: commands)
    }

    func registerCommands(reporter: DaemonReporter) {
        // What `plugins` answers is fixed by the config: built once, not from the instances at each request.
        let plugins: JSONValue = .array(configuration.plugins.map { p in
            var o: [String: JSONValue] = ["id": .string(p.id), "type": .string(p.type), "kind": .string(p.kind.rawValue)]
            switch p.instance {
            case .source(let s): o["produces"] = .array(s.produces.map { .string($0) })
            case .service(let s):
                o["subscriptions"] = .array(s.subscriptions.map { .string($0) })
                o["produces"] = .array(s.produces.map { .string($0) })
            case .sink(let s): o["subscriptions"] = .array(s.subscriptions.map { .string($0) })
            }
            return .object(o)
        })
        commands.register("status", summary: "Hub counters and each plugin's latest state.") { _ in
            reporter.report().statusJSON
        }
        commands.register("metrics", summary: "The counters as Prometheus text (what hub.metrics serves over HTTP).") { _ in
            .string(String(decoding: reporter.metrics(), as: UTF8.self))
        }
        commands.register("plugins", summary: "The configured plugins with their types, topics and ids.") { _ in plugins }
    }

    /// What `run` would refuse before it starts anything, checked without changing anything:
    /// the runtime and state directories that exist (owner and mode), the socket groups, and
    /// every CURVE endpoint's secret key file (present, readable, a secret key, mode 600) and
    /// authorized_keys directory. `locus check` calls it, and `locus run` calls it first, so
    /// both refuse these with the same message and exit 2. Throws a `SecurityError`.
    public static func preflight(_ configuration: LocusConfiguration) throws {
        _ = try DaemonBus.prepareDirectories(configuration.hub, dryRun: true)
        _ = try EndpointSecurity.load(configuration.hub.curve)
    }

}

/// A service that waits for graceful shutdown, then runs `close` (optionally around another service).
/// Immutable after init: `inner` is a `Service` (`Sendable`) and `close` is `@Sendable`.
final class ClosingService: Service, @unchecked Sendable {
    let inner: (any Service)?
    let close: @Sendable () -> Void

    init(wrapping inner: (any Service)? = nil, close: @escaping @Sendable () -> Void) {
        self.inner = inner
        self.close = close
    }

    func run() async throws {
        defer { close() }
        if let inner {
            try? await inner.run()
        } else {
            try? await gracefulShutdown()
        }
    }
}

/// The runners once built, for commands registered before them (`status`).
final class StartedRunners: @unchecked Sendable {
    /// Guards `runners`.
    private let lock = NSLock()
    private var runners: [String: PluginRunner] = [:]

    func set(_ list: [PluginRunner]) {
        lock.withLock { runners = Dictionary(list.map { ($0.plugin.id, $0) }, uniquingKeysWith: { a, _ in a }) }
    }

    func runner(_ plugin: String) -> PluginRunner? {
        lock.withLock { runners[plugin] }
    }
}

/// Stops every source at once when the group's shutdown reaches it (it sits after the sources,
/// so it is asked first), then waits until all have stopped. Without it the group stops them one
/// after another and shutdown takes the sum of their stop times (exec plugins' stop_timeout).
/// Immutable after init: `runners` is a `let` of thread-safe runners.
final class SourcesStopper: Service, @unchecked Sendable {
    let runners: [PluginRunner]

    init(_ runners: [PluginRunner]) { self.runners = runners }

    func run() async throws {
        try? await gracefulShutdown()
        for r in runners { r.stopAhead() }
        while !runners.allSatisfy(\.hasStopped) {
            // Cancelled (graceful period over): the runners are cancelled too; stop waiting.
            if Task.isCancelled { return }
            try? await Task.sleep(nanoseconds: 20_000_000)
        }
    }
}
