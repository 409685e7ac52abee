import LocusCore

/// The standard service's diagnostic conditions (`location.status`): it is told what arrives
/// and, from event time alone, reports which conditions became active or were cleared since it
/// was last asked — so each change is published once, never on every tick.
///
/// - `location_unavailable`: no usable fix (a position meeting `max_horizontal_accuracy`) for
///   `unavailable_after` seconds, counted from the service's first message when there was none.
/// - `accuracy_limited`: `location_unavailable`, while fixes with a position did arrive in the
///   last `unavailable_after` seconds and all were refused for their accuracy. It is raised after
///   and cleared before `location_unavailable`, so it never stands alone.
/// - `source_disconnected`, per source: the source's plugin reported `disconnected`, `no_data`,
///   `failed`, `restarting` or `stopped` on `status.<source>`, or the source sent no fix at all
///   (not even one without a position) for `source_timeout` seconds. Cleared by its next fix or
///   by `connected`. Applies to the configured sources, or, when none are configured, to every
///   source that has sent a fix.
struct LocationDiagnostics {
    let sources: [String]
    let preference: SourceList
    let sourceTimeout: Double
    let unavailableAfter: Double
    let maxHorizontalAccuracy: Double

    private var start: EventTime?
    private var lastUsable: Usable?
    private var lastRefused: Refused?
    /// Latest fix of any kind per source: a fix without a position still shows the source is there.
    private var lastFix: [String: EventTime] = [:]
    /// Sources whose plugin reported them down, with the text for `reason`.
    private var reportedDown: [String: String] = [:]
    /// What has been published.
    private var unavailable = false
    private var accuracyLimited = false
    private var disconnected: Set<String> = []
    /// The sources `source_disconnected` applies to, in a stable order (kept, not re-sorted on
    /// every message: this runs for every fix and tick).
    private var watched: [String] = []

    init(configuration: StandardConfiguration) {
        sources = configuration.sources
        preference = SourceList(configuration.sources)
        sourceTimeout = configuration.sourceTimeout
        unavailableAfter = configuration.unavailableAfter
        maxHorizontalAccuracy = configuration.maxHorizontalAccuracy
        watched = Self.ordered(configuration.sources, by: preference)
    }

    /// The latest usable fix.
    struct Usable: Codable, Equatable {
        var time: EventTime
        var source: String
    }

    /// The latest fix with a position refused for its accuracy.
    struct Refused: Codable, Equatable {
        var time: EventTime
        var source: String
        var accuracy: Double?
    }

    /// What the diagnostics remember: what arrived and what was published. `watched` is not in
    /// it: it follows from the configuration and the sources in `lastFix`.
    struct State: Codable, Equatable {
        var start: EventTime?
        var lastUsable: Usable?
        var lastRefused: Refused?
        var lastFix: [String: EventTime]
        var reportedDown: [String: String]
        var unavailable: Bool
        var accuracyLimited: Bool
        /// Sorted, so that equal states encode to equal bytes (a set's order varies).
        var disconnected: [String]
    }

    var state: State {
        get {
            State(start: start, lastUsable: lastUsable, lastRefused: lastRefused, lastFix: lastFix, reportedDown: reportedDown,
                  unavailable: unavailable, accuracyLimited: accuracyLimited, disconnected: disconnected.sorted())
        }
        set {
            (start, lastUsable, lastRefused) = (newValue.start, newValue.lastUsable, newValue.lastRefused)
            (lastFix, reportedDown) = (newValue.lastFix, newValue.reportedDown)
            (unavailable, accuracyLimited, disconnected) = (newValue.unavailable, newValue.accuracyLimited, Set(newValue.disconnected))
            watched = Self.ordered(sources.isEmpty ? Array(lastFix.keys) : sources, by: preference)
        }
    }

    /// Any message with event time: the first one starts the `location_unavailable` clock.
    mutating func observe(now: EventTime) {
        if start == nil { start = now }
    }

    /// A fix from an accepted source; `usable` if it has a position that meets the accuracy limit.
    mutating func fixReceived(_ fix: Fix, at time: EventTime, usable: Bool) {
        observe(now: time)
        if lastFix[fix.source] == nil, sources.isEmpty { watched = Self.ordered(watched + [fix.source], by: preference) }
        lastFix[fix.source] = max(lastFix[fix.source] ?? time, time)
        reportedDown[fix.source] = nil
        guard fix.hasPosition else { return }
        if usable {
            if time >= lastUsable?.time ?? time { lastUsable = Usable(time: time, source: fix.source) }
        } else if time >= lastRefused?.time ?? time {
            lastRefused = Refused(time: time, source: fix.source, accuracy: fix.horizontalAccuracy)
        }
    }

    /// A `status.plugin` message about `source`.
    mutating func statusReported(source: String, state: PluginStatus.State, reason: String?) {
        guard isRelevant(source) else { return }
        switch state {
        case .disconnected, .noData, .failed, .restarting, .stopped:
            reportedDown[source] = "\(source) reported \(state.rawValue)" + (reason.map { ": \($0)" } ?? "")
        case .connected:
            reportedDown[source] = nil
        case .starting, .running:
            break  // the runtime's view of the plugin, not of its device: wait for a fix or `connected`
        }
    }

    /// The conditions that changed as of `now`, in a fixed order: activations of
    /// `location_unavailable` before `accuracy_limited`, clearings the other way round, then
    /// sources by preference and id.
    mutating func changes(now: EventTime) -> [LocationStatus] {
        guard let start else { return [] }
        var out: [LocationStatus] = []
        let since = lastUsable?.time ?? start
        let isUnavailable = now.seconds(since: since) >= unavailableAfter
        let isLimited = isUnavailable && lastRefused.map { now.seconds(since: $0.time) < unavailableAfter } == true

        if accuracyLimited && !isLimited {
            accuracyLimited = false
            if !isUnavailable, let u = lastUsable {
                out.append(LocationStatus(condition: .accuracyLimited, active: false, source: u.source, reason: "usable fix from \(u.source)"))
            } else {
                out.append(LocationStatus(condition: .accuracyLimited, active: false,
                                          reason: "no fix with a position for \(unavailableAfter.reasonText) s"))
            }
        }
        if unavailable != isUnavailable {
            unavailable = isUnavailable
            if isUnavailable {
                let wanted = maxHorizontalAccuracy > 0 ? "with a position within \(maxHorizontalAccuracy.reasonText) m" : "with a position"
                out.append(LocationStatus(condition: .locationUnavailable, active: true,
                                          reason: "no fix \(wanted) for \(now.seconds(since: since).reasonText) s"))
            } else {
                let source = lastUsable?.source
                out.append(LocationStatus(condition: .locationUnavailable, active: false, source: source,
                                          reason: "usable fix from \(source ?? "a source")"))
            }
        }
        if !accuracyLimited && isLimited, let refused = lastRefused {
            accuracyLimited = true
            let found = refused.accuracy.map { "h_accuracy \($0.reasonText) m" } ?? "no h_accuracy"
            out.append(LocationStatus(condition: .accuracyLimited, active: true, source: refused.source,
                                      reason: "fixes arrive but none meets max_horizontal_accuracy \(maxHorizontalAccuracy.reasonText) m (latest from \(refused.source): \(found))"))
        }

        for source in watched {
            let silentFor = lastFix[source].map { now.seconds(since: $0) }
            let silent = silentFor.map { $0 >= sourceTimeout } ?? false
            let down = reportedDown[source] != nil || silent
            guard down != disconnected.contains(source) else { continue }
            if down {
                disconnected.insert(source)
                let reason = reportedDown[source] ?? "no fix from \(source) for \(silentFor!.reasonText) s"
                out.append(LocationStatus(condition: .sourceDisconnected, active: true, source: source, reason: reason))
            } else {
                disconnected.remove(source)
                let fixed = lastFix[source].map { now.seconds(since: $0) < sourceTimeout } ?? false
                out.append(LocationStatus(condition: .sourceDisconnected, active: false, source: source,
                                          reason: fixed ? "fix from \(source)" : "\(source) reported connected"))
            }
        }
        return out
    }

    private func isRelevant(_ source: String) -> Bool {
        sources.isEmpty ? lastFix[source] != nil : sources.contains(source)
    }

    /// Sources by preference, then id.
    private static func ordered(_ sources: [String], by preference: SourceList) -> [String] {
        sources.sorted { (preference.preference(of: $0), $0) < (preference.preference(of: $1), $1) }
    }
}
