import Foundation
import LocusBus
import LocusCore
import Logging
import ServiceLifecycle

/// Runs one configured plugin under supervision, as a `Service` of the daemon's `ServiceGroup`.
///
/// - A source runs until it returns (finished: `stopped`, not restarted) or throws (`failed`,
///   then `restarting` after a backoff delay, then a fresh instance; after three identical
///   `StartupFailure`s in a row that ended at start, `failed` for good).
/// - A service receives its subscriptions one message at a time; what it emits is published in
///   order. If it throws, the instance is discarded and a fresh one started after the delay.
///   A `CommandableService` also receives control commands on the same task, between two
///   messages (see `perform(command:arguments:timeout:)`).
/// - A sink consumes its subscription stream; the same restart rules apply.
///
/// On graceful shutdown sources are cancelled; services and sinks drain what their sockets
/// already hold, then return — a service still draining when the group cancels it stops at the
/// next message. The group shuts services down in reverse order of the list the
/// runtime builds (sources first, hub last). A plugin still running `stopBudget` seconds after
/// it was cancelled (stuck in a call that does not look at cancellation) is abandoned: reported
/// `failed`, logged, and left to the process's exit, so the daemon still stops cleanly.
public final class PluginRunner: Service, @unchecked Sendable {
    public let plugin: ConfiguredPlugin
    let bus: any BusAttachment
    let status: StatusBoard
    let logger: Logger
    /// The first feed is made before the group starts, so no early message is missed.
    private var preparedFeed: (any BusFeed)?
    let publisher: EventPublisher
    private let outlet: any ClosableOutlet
    /// Guards `preparedFeed`, `currentFeed`, `earlierFeeds`, `shuttingDown`, `gated`, `runningInstance`, `stateKeeper`,
    /// `serviceCounters`, `stoppedAhead`, `supervisionEnded`, `sourceTask`, `backoffWait` and `restarts`.
    private let lock = NSLock()
    private var currentFeed: (any BusFeed)?
    /// What earlier feeds (before a restart) counted, so `received` covers the whole run.
    private var earlierFeeds = SubscriptionStatistics()
    private var shuttingDown = false
    /// Changed by `supervise`; read by `report`, which a plugin's status may call from any thread.
    private var restarts = 0
    /// Where control commands enter, if the plugin is a `CommandableService`.
    let commandInbox: ServiceCommandInbox?
    /// The commands the first instance answers (read once: `CommandableService.commands`).
    public let commands: [ServiceCommand]

    /// Back-pressure for sources reading files (nil: nobody waits, as in tests without a daemon).
    let gate: DeliveryGate?
    /// This plugin's subscription as the gate follows it.
    private var gated: DeliveryGate.Subscriber?
    /// What the plugin published.
    let tally: PublishTally
    /// Seconds a plugin may take to stop once cancelled before it is abandoned: a source's own
    /// `stopTimeout` (an exec plugin's SIGTERM-to-SIGKILL wait) plus one second.
    let stopBudget: Double
    static let stopBudgetMargin = 1.0
    /// The instance running now (for its counters).
    private var runningInstance: PluginInstance?
    /// A `StatefulService`'s state keeper, once opened.
    private var stateKeeper: ServiceStateKeeper?
    /// A service's own counters (`ReportsCounters`) as of its last batch or command: the
    /// service is a value mutated on the runner's task, so a status request reads this copy.
    private var serviceCounters: [String: UInt64]?

    public convenience init(plugin: ConfiguredPlugin, bus: any BusAttachment, status: StatusBoard) throws {
        try self.init(plugin: plugin, bus: bus, status: status, gate: nil)
    }

    init(plugin: ConfiguredPlugin, bus: any BusAttachment, status: StatusBoard, gate: DeliveryGate?) throws {
        self.plugin = plugin
        self.bus = bus
        self.status = status
        self.gate = gate
        self.logger = plugin.setup.logger
        self.outlet = try bus.makeOutlet(for: plugin.id)
        self.tally = PublishTally(gate: gate)
        if case .source(let s) = plugin.instance {
            stopBudget = s.stopTimeout + Self.stopBudgetMargin
        } else {
            stopBudget = Self.stopBudgetMargin
        }
        self.publisher = EventPublisher(producer: plugin.id, outlet: outlet, observer: tally)
        if case .service(let s) = plugin.instance,
           s is any CommandableService || s is any FileFedService || (s as? any DeviceStateTransfer)?.movesDeviceState == true {
            commands = (s as? any CommandableService)?.commands ?? []
            commandInbox = ServiceCommandInbox(refusing: Self.startingReason(plugin.id))
        } else {
            commands = []
            commandInbox = nil
        }
        switch plugin.instance {
        case .service(let s): preparedFeed = try bus.subscribe(s.subscriptions, for: plugin.id)
        case .sink(let s): preparedFeed = try bus.subscribe(s.subscriptions, for: plugin.id)
        case .source: break
        }
    }

    /// Follows the instance's feed while it runs: one that is not running (failed, waiting to
    /// restart) must hold no source back, as nothing would ever catch it up.
    func followFeed(_ prefixes: [String]) -> DeliveryGate.Subscriber? {
        guard let gate else { return nil }
        let s = gate.add(consumer: plugin.id, prefixes: prefixes)
        lock.withLock { gated = s }
        return s
    }

    func unfollowFeed(_ subscriber: DeliveryGate.Subscriber?) {
        guard let gate, let subscriber else { return }
        gate.remove(subscriber)
    }

    /// Tells the gate the plugin has handled `message`.
    @inline(__always)
    func noteConsumed(_ message: BusMessage) {
        noteConsumed(producer: message.envelope.producer, seq: message.envelope.seq)
    }

    func noteConsumed(producer: String, seq: UInt64) {
        if let gate, let gated { gate.consumed(gated, producer: producer, seq: seq) }
    }

    /// `feed`'s messages one at a time, each reported to the gate once the sink asks for the
    /// next one (a sink handles one message at a time, so it is done with the previous one).
    func consumedReporting(_ feed: any BusFeed) -> AsyncStream<BusMessage> {
        guard gate != nil, gated != nil else { return feed.queue.stream() }
        return feed.queue.stream { [self] in noteConsumed($0) }
    }

    var kindName: String { plugin.kind.rawValue }

    func report(_ state: PluginStatus.State, reason: String? = nil, retryIn: Double? = nil) {
        status.report(PluginStatus(plugin: plugin.id, kind: kindName, pluginType: plugin.type, state: state,
                                   reason: reason, restarts: lock.withLock { restarts }, retryIn: retryIn))
    }

    var isShuttingDown: Bool {
        lock.withLock { shuttingDown }
    }

    public func run() async throws {
        defer { outlet.close() }
        let race = StopRace()
        // The work runs in a task of its own, so that one stuck past its budget can be left
        // behind; it inherits the task-locals (graceful shutdown) but not cancellation, which
        // is passed on by hand.
        let work = Task { [self] in
            await withGracefulShutdownHandler {
                await supervise()
            } onGracefulShutdown: { [self] in
                beginShutdown()
            }
            race.finished()
        }
        let finished = await withTaskCancellationHandler {
            await race.wait()
        } onCancel: { [self] in
            work.cancel()
            race.startBudget(stopBudget)
        }
        guard finished else {
            abandon()
            return
        }
        lock.withLock { supervisionEnded = true }
        // Stopped ahead of the group (sources stop together, see `SourcesStopper`): the group
        // takes any service returning before it was asked as a failure, so wait to be asked.
        if lock.withLock({ stoppedAhead }) { try? await gracefulShutdown() }
    }

    /// Gives up on a plugin that did not stop within its budget: it keeps running until the
    /// process exits, but nothing waits for it (its outlet is closed: what it still publishes
    /// is dropped with a warning).
    func abandon() {
        let reason = "abandoned: still running \(stopBudget) s after it was told to stop (stuck in a call that does not check for cancellation)"
        logger.error("plugin did not stop in time; the daemon stops without it", metadata: [
            "plugin": "\(plugin.id)", "budget_seconds": "\(stopBudget)"])
        report(.failed, reason: reason)
        commandInbox?.refuse(Self.stoppingReason(plugin.id))
        lock.withLock { supervisionEnded = true }
    }

    /// Stops the plugin now, before the group's graceful shutdown reaches it.
    func stopAhead() {
        lock.withLock { stoppedAhead = true }
        beginShutdown()
    }

    /// True once the plugin has stopped running (its source task, feed and restarts are over).
    var hasStopped: Bool { lock.withLock { supervisionEnded } }
    private var stoppedAhead = false
    private var supervisionEnded = false

    /// Called when the group shuts down gracefully: stops feeds (draining) and cancels sources.
    func beginShutdown() {
        let (feed, task, wait) = lock.withLock {
            shuttingDown = true
            return (currentFeed, sourceTask, backoffWait)
        }
        commandInbox?.refuse(Self.stoppingReason(plugin.id))
        feed?.stop(drain: true)
        task?.cancel()
        wait?.cancel()
    }

    private var sourceTask: Task<Void, Error>?
    /// The wait between a failure and the restart, so that shutdown ends it at once.
    private var backoffWait: Task<Void, Never>?

    /// Waits `seconds` before a restart, or less if shutdown begins meanwhile.
    private func waitBeforeRestart(_ seconds: Double) async {
        let wait = Task { _ = try? await Task.sleep(nanoseconds: UInt64(seconds * 1e9)) }
        let cancelNow = lock.withLock {
            backoffWait = wait
            return shuttingDown
        }
        if cancelNow { wait.cancel() }
        await withTaskCancellationHandler { await wait.value } onCancel: { wait.cancel() }
        lock.withLock { backoffWait = nil }
    }

    func supervise() async {
        var backoff = Backoff()
        var streak = StartupFailureStreak()
        var instance = plugin.instance
        while !isShuttingDown && !Task.isCancelled {
            report(.starting)
            let started = ContinuousClock.now
            do {
                try await runOnce(instance)
                if !isShuttingDown && !Task.isCancelled {
                    report(.stopped, reason: "finished")
                    commandInbox?.refuse(Self.stoppedReason(plugin.id))
                }
                break
            } catch let failure as PermanentFailure {
                if isShuttingDown || Task.isCancelled { break }
                report(.failed, reason: "\(failure.reason) (not restarted)")
                commandInbox?.refuse(Self.failedReason(plugin.id, failure.reason))
                break
            } catch {
                if isShuttingDown || Task.isCancelled { break }
                let ran = started.duration(to: .now)
                let seconds = Double(ran.components.seconds) + Double(ran.components.attoseconds) / 1e18
                if streak.record(error) {
                    let reason = "\(error) (the same \(StartupFailureStreak.limit) times in a row right after starting; not restarted)"
                    logger.error("plugin fails the same way at every start; not restarted", metadata: [
                        "plugin": "\(plugin.id)", "reason": "\(error)"])
                    report(.failed, reason: reason)
                    commandInbox?.refuse(Self.failedReason(plugin.id, reason))
                    break
                }
                report(.failed, reason: "\(error)")
                commandInbox?.refuse(Self.restartingReason(plugin.id))
                let delay = backoff.delay(afterRunning: seconds)
                lock.withLock { restarts += 1 }
                // The failure stays in the state while it waits, so `locus ctl status` shows why.
                report(.restarting, reason: "\(error)", retryIn: delay)
                await waitBeforeRestart(delay)
                if isShuttingDown || Task.isCancelled { break }
                do {
                    instance = try plugin.rebuild()
                } catch {
                    report(.failed, reason: "cannot rebuild: \(error)")
                    commandInbox?.refuse(Self.failedReason(plugin.id, "cannot rebuild: \(error)"))
                    break
                }
            }
        }
        if isShuttingDown || Task.isCancelled {
            report(.stopped, reason: "shutdown")
            commandInbox?.refuse(Self.stoppingReason(plugin.id))
        }
    }

    func runOnce(_ instance: PluginInstance) async throws {
        lock.withLock {
            runningInstance = instance
            serviceCounters = nil
        }
        switch instance {
        case .source(let source):
            let context = makeContext()
            let task = Task { try await source.run(context: context) }
            let cancelNow = lock.withLock {
                sourceTask = task
                return shuttingDown
            }
            if cancelNow { task.cancel() }
            report(.running)
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: {
                task.cancel()
            }
        case .service(var service):
            let feed = try takeFeed(service.subscriptions)
            let followed = followFeed(service.subscriptions)
            defer { unfollowFeed(followed) }
            if let keeper = try stateKeeper(for: service) {
                var kept: any ServicePlugin = service
                // Commands wait while the state is restored (many large polygons take a while),
                // within their timeout, rather than being refused as "starting".
                let inbox = commandInbox
                if let inbox {
                    let queue = feed.queue
                    inbox.accept(wake: { queue.wake() })
                    // beginShutdown may have refused just before `accept`: refuse again so it sticks.
                    if isShuttingDown || Task.isCancelled { inbox.refuse(Self.stoppingReason(plugin.id)) }
                }
                do {
                    try keeper.start(&kept)
                } catch {
                    inbox?.refuse(Self.restartingReason(plugin.id))
                    inbox?.refuseOutstanding()
                    throw error
                }
                report(.running)
                try await runKeepingState(&kept, keeper: keeper, feed: feed, inbox: inbox)
                return
            }
            report(.running)
            if let inbox = commandInbox {
                var commandable: any ServicePlugin = service
                try await runCommandable(&commandable, feed: feed, inbox: inbox)
                return
            }
            while let batch = await feed.queue.take() {
                for message in batch {
                    if Task.isCancelled { logCancelledBacklog(); return }
                    var output = ServiceOutput()
                    try service.receive(message, output: &output)
                    publish(output)
                    noteConsumed(message)
                }
                noteCounters(of: service)
            }
        case .sink(let sink):
            let feed = try takeFeed(sink.subscriptions)
            let followed = followFeed(sink.subscriptions)
            defer { unfollowFeed(followed) }
            report(.running)
            try await sink.run(messages: consumedReporting(feed), context: makeContext())
        }
    }

    /// The keeper of a `StatefulService`'s state, opened at the first start and kept for the
    /// instances after it; nil when the service keeps no state or nothing may be persisted.
    private func stateKeeper(for service: any ServicePlugin) throws -> ServiceStateKeeper? {
        if let keeper = lock.withLock({ stateKeeper }) { return keeper }
        guard let keeper = try ServiceStateKeeper.open(for: plugin, service: service, publisher: publisher,
                                                       health: status.stateStore) else { return nil }
        lock.withLock { stateKeeper = keeper }
        return keeper
    }

    /// The service loop with its state kept (`ServiceStateKeeper`): a batch is processed, then
    /// committed with the events it caused, then those are published (the commit and publish on
    /// the keeper's thread, while the next batch is processed). Control commands are
    /// taken between two batches and committed the same way, each on its own, before the reply:
    /// a reply that says a fence was added means the fence survives a `kill -9`.
    private func runKeepingState(_ service: inout any ServicePlugin, keeper: ServiceStateKeeper, feed: any BusFeed,
                                 inbox: ServiceCommandInbox?) async throws {
        let watch = watchFiles(of: service, inbox: inbox)
        defer { watch?.cancel() }
        var failure: (any Error)?
        do {
            reading: while true {
                if let inbox { try takeCommands(inbox, service: &service, keeper: keeper) }
                guard let batch = await feed.queue.take() else { break }
                var events: [ServiceOutput.Event] = []
                var handled = 0
                var processed = 0
                for message in batch {
                    if Task.isCancelled { break }
                    handled += 1
                    if keeper.alreadyProcessed(message) { continue }
                    var output = ServiceOutput()
                    try service.receive(message, output: &output)
                    keeper.processed(message)
                    processed += 1
                    events += output.events
                }
                // Committed and published on the keeper's thread while the next batch is processed.
                let consumed = ConsumedMarks(batch.prefix(handled))
                try keeper.commitAndPublishInBackground(&service, events: events, inputs: processed) { [self] in
                    for mark in consumed.marks { noteConsumed(producer: mark.producer, seq: mark.seq) }
                }
                noteCounters(of: service)
                if handled < batch.count { logCancelledBacklog(); break reading }
            }
        } catch {
            failure = error
        }
        do { try keeper.finishCommits() } catch { if failure == nil { failure = error } }
        defer { keeper.closeCommitter() }
        guard let inbox else {
            if let failure { throw failure }
            return
        }
        let stopping = isShuttingDown || Task.isCancelled
        inbox.refuse(stopping ? Self.stoppingReason(plugin.id)
                     : failure != nil ? Self.restartingReason(plugin.id) : Self.stoppedReason(plugin.id))
        // The feed ended (a drain at shutdown): commands submitted before are still answered.
        if failure == nil && !Task.isCancelled {
            do { try takeCommands(inbox, service: &service, keeper: keeper) } catch { failure = error }
        }
        inbox.refuseOutstanding()
        if let failure { throw failure }
    }

    /// Runs the commands waiting in `inbox`, each committed with its events before its reply.
    /// A command whose commit fails is answered with the error, and the instance is restarted
    /// from the last commit (rethrown): its memory holds a change the store does not.
    private func takeCommands(_ inbox: ServiceCommandInbox, service: inout any ServicePlugin, keeper: ServiceStateKeeper) throws {
        for command in inbox.takePending() {
            guard command.begin() else { continue }
            var output = ServiceOutput()
            let result: JSONValue
            do {
                result = try apply(command, to: &service, output: &output)
            } catch {
                command.answer(.failure(commandFailure(error, command: command.name)))
                continue
            }
            do {
                try keeper.commitAndPublish(&service, events: output.events)
            } catch {
                command.answer(.failure(ControlCommandError("service '\(plugin.id)' could not save '\(command.name)': \(error); nothing was changed")))
                throw error
            }
            noteCounters(of: service)
            command.answer(.success(result))
        }
    }

    /// A service still working through its backlog when the group cancels it (the graceful
    /// period is over) stops at the next message: past the group's cancellation budget
    /// ServiceLifecycle aborts the whole process. What it had not processed is dropped.
    func logCancelledBacklog() {
        logger.warning("stopped before its backlog was processed: the shutdown's graceful period ended", metadata: ["plugin": "\(plugin.id)"])
    }

    func takeFeed(_ prefixes: [String]) throws -> any BusFeed {
        let prepared: (any BusFeed)? = lock.withLock {
            defer { preparedFeed = nil }
            return preparedFeed
        }
        let feed = try prepared ?? bus.subscribe(prefixes, for: plugin.id)
        let stopNow = lock.withLock {
            if let old = currentFeed?.statistics { earlierFeeds.add(old) }
            currentFeed = feed
            return shuttingDown
        }
        if stopNow { feed.stop(drain: false) }
        return feed
    }

    /// Messages this plugin's subscriptions delivered and skipped since the daemon started;
    /// nil for a source (it subscribes to nothing) or a feed that does not count.
    public var received: SubscriptionStatistics? {
        lock.withLock {
            guard let current = currentFeed?.statistics ?? preparedFeed?.statistics else { return nil }
            var total = earlierFeeds
            total.add(current)
            return total
        }
    }

    /// The running instance's own counters (`ReportsCounters`), or the last instance's.
    public var reportedCounters: [String: UInt64]? {
        let instance = lock.withLock { runningInstance }
        switch instance {
        case .source(let s): return (s as? any ReportsCounters)?.reportedCounters
        case .sink(let s): return (s as? any ReportsCounters)?.reportedCounters
        case .service:
            let (keeper, own) = lock.withLock { (stateKeeper, serviceCounters) }
            guard let kept = keeper?.counters.reported else { return own }
            return (own ?? [:]).merging(kept) { _, keeper in keeper }
        case nil: return nil
        }
    }

    /// Copies a service's own counters for status requests. Called after each batch and
    /// command (not per message): a snapshot costs a reflection of the counters struct.
    func noteCounters(of service: any ServicePlugin) {
        guard let counting = service as? any ReportsCounters else { return }
        let snapshot = counting.reportedCounters
        lock.withLock { serviceCounters = snapshot }
    }

    /// What the outlet sent and dropped.
    public var sendStatistics: OutletStatistics? { outlet.sendStatistics }

    /// How far the plugin's subscription is behind the producers feeding it (in sequence
    /// numbers; the largest over producers); nil when not followed.
    public var lag: UInt64? {
        guard let gate else { return nil }
        let followed = lock.withLock { gated }
        return followed.map { gate.largestLag(of: $0) }
    }

    /// The services' device states, for a source that hands devices between servers; set by
    /// the daemon before the group runs.
    var deviceStates: ServiceDeviceStates? {
        get { lock.withLock { sharedDeviceStates } }
        set { lock.withLock { sharedDeviceStates = newValue } }
    }
    private var sharedDeviceStates: ServiceDeviceStates?

    /// Whether this plugin's running instance has taken every message of `producers` published
    /// so far (true when it is not followed: nothing to wait for).
    func hasConsumed(everythingOf producers: Set<String>) -> Bool {
        guard let gate, let followed = lock.withLock({ gated }) else { return true }
        return gate.hasConsumed(followed, everythingOf: producers)
    }

    /// False while this plugin is an `AcknowledgingSink` with messages its destination has not
    /// acknowledged yet.
    var isDeliverySettled: Bool {
        guard case .sink(let s)? = lock.withLock({ runningInstance }), let acknowledging = s as? any AcknowledgingSink else { return true }
        return acknowledging.isSettled
    }

    /// Whether this plugin is a service whose per-device state moves (`DeviceStateTransfer`).
    var movesDeviceState: Bool {
        if case .service(let s) = plugin.instance { return (s as? any DeviceStateTransfer)?.movesDeviceState == true }
        return false
    }

    /// Queues a device state request for the running instance, as a command.
    func submit(_ request: PendingServiceCommand) throws {
        guard let inbox = commandInbox else { throw ControlCommandError("service '\(plugin.id)' moves no device state") }
        try inbox.submit(request)
    }

    func makeContext() -> PluginContext {
        PluginContext(id: plugin.id, logger: logger, publisher: publisher, pacing: gate,
                      deviceStates: deviceStates.map { SourceDeviceStates(services: $0, source: plugin.id) }) { [weak self] state, reason in
            self?.report(state, reason: reason)
        }
    }
}
