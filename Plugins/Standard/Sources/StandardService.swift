import LocusCore

/// The standard location service: "the current location" for subscribers that do not want to
/// filter fixes themselves, like Core Location's standard location service.
///
/// Per usable fix (a position meeting `max_horizontal_accuracy`, from a configured source):
/// the `FixArbiter` decides whether it becomes the current estimate; the `StationaryDetector`
/// follows accepted fixes; the `UpdateThrottle` decides whether an accepted fix is published as
/// `location.update`. `LocationDiagnostics` turns fixes, `status.<source>` and `clock.tick`
/// into `location.status` changes. A pure state machine: "now" is the event time of the
/// messages, so replays give the same events at any speed.
///
/// Its state is its parts' (the estimate, the stationary anchor, the last update, what the
/// diagnostics saw and published) with the pause and "now": kept across restarts, so a restart
/// neither publishes an update the throttle would hold back nor forgets a pause.
public struct StandardService: StatefulService {
    public let id: String
    public let configuration: StandardConfiguration
    private let sources: SourceList
    private var arbiter: FixArbiter
    private var stationary: StationaryDetector
    private var throttle: UpdateThrottle
    private var diagnostics: LocationDiagnostics
    /// When updates were paused (`pause_when_stationary`); nil while publishing.
    private var pausedAt: EventTime?
    /// Latest event time seen (fixes and ticks); `status.plugin` messages carry wall-clock time
    /// and never move it.
    private var now: EventTime?

    public init(id: String, configuration: StandardConfiguration) {
        self.id = id
        self.configuration = configuration
        sources = SourceList(configuration.sources)
        arbiter = FixArbiter(sources: sources, sourceTimeout: configuration.sourceTimeout)
        stationary = StationaryDetector(stationaryTime: configuration.stationaryTime, minimumRadius: configuration.stationaryRadius)
        throttle = UpdateThrottle(distanceFilter: configuration.distanceFilter, minInterval: configuration.minInterval,
                                  maxInterval: configuration.maxInterval)
        diagnostics = LocationDiagnostics(configuration: configuration)
    }

    /// Everything the service remembers; the parts' settings come from the configuration.
    public struct State: Codable, Equatable {
        var arbiter: FixArbiter.State
        var stationary: StationaryDetector.State
        var lastPublished: TimedFix?
        var diagnostics: LocationDiagnostics.State
        var pausedAt: EventTime?
        var now: EventTime?
    }

    public var state: State {
        get {
            State(arbiter: arbiter.state, stationary: stationary.state, lastPublished: throttle.lastPublished,
                  diagnostics: diagnostics.state, pausedAt: pausedAt, now: now)
        }
        set {
            arbiter.state = newValue.arbiter
            stationary.state = newValue.stationary
            throttle.lastPublished = newValue.lastPublished
            diagnostics.state = newValue.diagnostics
            (pausedAt, now) = (newValue.pausedAt, newValue.now)
        }
    }

    public var subscriptions: [String] {
        if configuration.sources.isEmpty { return ["obs.fix.", "status.", "clock.tick"] }
        return configuration.sources.map { "obs.fix.\($0)" } + configuration.sources.map { "status.\($0)" } + ["clock.tick"]
    }

    public var produces: [String] {
        ["location.update.\(id)", "location.paused.\(id)", "location.resumed.\(id)", "location.status.\(id)"]
    }

    public mutating func receive(_ message: BusMessage, output: inout ServiceOutput) {
        if let fix = message.payload(Fix.self) {
            guard sources.contains(fix.source) else { return }
            receive(fix, at: message.time, output: &output)
        } else if message.payload(ClockTick.self) != nil {
            advance(to: message.time)
            _ = arbiter.expire(now: message.time)
            publishDiagnostics(&output)
        } else if let status = message.payload(PluginStatus.self) {
            diagnostics.statusReported(source: status.plugin, state: status.state, reason: status.reason)
            publishDiagnostics(&output)
        }
    }

    private mutating func receive(_ fix: Fix, at time: EventTime, output: inout ServiceOutput) {
        advance(to: time)
        let usable = fix.hasPosition && configuration.meetsAccuracy(fix)
        diagnostics.fixReceived(fix, at: time, usable: usable)
        publishDiagnostics(&output)
        // Expire first: a stale estimate must not hold off the fix that replaces it.
        _ = arbiter.expire(now: time)
        guard usable, let candidate = TimedFix(fix, time: time), arbiter.offer(candidate) == .accepted else { return }
        accept(candidate, output: &output)
    }

    private mutating func accept(_ f: TimedFix, output: inout ServiceOutput) {
        let change = stationary.observe(f)
        if case .startedMoving(let distance) = change, let paused = pausedAt {
            pausedAt = nil
            output.emit(LocationResumed(source: f.source, latitude: f.coordinate.latitude, longitude: f.coordinate.longitude,
                                        horizontalAccuracy: f.fix.horizontalAccuracy, distance: distance,
                                        pausedFor: f.time.seconds(since: paused)),
                        topic: "location.resumed.\(id)", time: f.time)
        }
        if pausedAt == nil, throttle.shouldPublish(f), let update = LocationUpdate(fix: f.fix, isStationary: stationary.isStationary) {
            throttle.published(f)
            output.emit(update, topic: "location.update.\(id)", time: f.time)
        }
        // After the update, so subscribers get the fix that completed the stationary time first.
        if case .becameStationary(let since) = change, configuration.pauseWhenStationary, pausedAt == nil {
            pausedAt = f.time
            output.emit(LocationPaused(source: f.source, latitude: f.coordinate.latitude, longitude: f.coordinate.longitude,
                                       horizontalAccuracy: f.fix.horizontalAccuracy, stationaryFor: f.time.seconds(since: since)),
                        topic: "location.paused.\(id)", time: f.time)
        }
    }

    private mutating func advance(to time: EventTime) {
        diagnostics.observe(now: time)
        // Sources are interleaved in arrival order, so a fix can be a little older than a tick
        // already seen: "now" only moves forward.
        if now.map({ time > $0 }) ?? true { now = time }
    }

    private mutating func publishDiagnostics(_ output: inout ServiceOutput) {
        guard let now else { return }  // a status before any event time waits for the first one
        for change in diagnostics.changes(now: now) {
            output.emit(change, topic: "location.status.\(id)", time: now)
        }
    }
}
