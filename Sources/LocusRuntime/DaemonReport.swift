import Foundation
import LocusBus
import LocusCore
import LocusStore

/// Everything the daemon counts, read at one moment: the source of `locus ctl status`, the
/// metrics exposition and the `status.drops` events, so the three always agree.
public struct DaemonReport: Sendable {
    public var hub: HubStatistics
    public var control: ControlStatistics
    public var plugins: [PluginReport]
    /// Times a source reading a file had to wait for in-process consumers.
    public var deliveryWaits: UInt64
    /// Seconds since the daemon started.
    public var uptime: Double
    /// The journal's extent and counters (nil when it is off).
    public var journal: JournalStatistics?
    /// What the catch-up socket served.
    var catchup: CatchupStatistics?
    /// CURVE connections accepted per client key name, and refused (nil without CURVE endpoints).
    public var curve: ZAPStatistics?
    /// Per restricted publish endpoint (`topics:`/`precision:`): relayed, missed, unreducible.
    public var restricted: [String: RestrictedPublisherStatistics] = [:]
    /// Whether the state stores can be written (`status.locus.state`): stores unavailable since
    /// boot, services whose last commit failed.
    var stateStore = StateStoreHealth.Snapshot()
    /// Wall-clock milliseconds since 1970 when the report was read (for the journal's oldest age).
    public var readAtMs: Int64 = Int64(Date().timeIntervalSince1970 * 1000)

    /// One plugin's state and counters.
    public struct PluginReport: Sendable {
        public var status: PluginStatus
        /// What its subscription delivered and dropped (services and sinks).
        public var received: SubscriptionStatistics?
        /// What it published (its outlet's counts) and how many were fixes.
        public var sent: OutletStatistics?
        public var published: UInt64
        public var fixes: UInt64
        /// Seconds since its last `obs.fix.*` message (sources), nil before the first.
        public var lastFixAge: Double?
        /// How far its subscription is behind, in sequence numbers (nil if not followed).
        public var lag: UInt64?
        /// The plugin's own counters (`ReportsCounters`).
        public var counters: [String: UInt64]?
    }

    /// Every drop counter by place and reason, as `place.reason` (for `status.drops`): the
    /// hub's reasons, each plugin's subscription (`<id>.slow_consumer`, `<id>.undecodable`)
    /// and outlet (`<id>.send_dropped`), its own `dropped_<reason>` counters (`<id>.<reason>`),
    /// and the control socket's refusals.
    public var dropCounters: [String: UInt64] {
        var out: [String: UInt64] = [:]
        for (reason, n) in hub.dropped { out["hub.\(reason)"] = n }
        out["hub.subscribers_cut_off"] = hub.subscribersCutOff
        for r in ControlStatistics.Refusal.allCases { out["control.\(r.rawValue)"] = control.refused[r] ?? 0 }
        for p in plugins {
            if let r = p.received {
                out["\(p.status.plugin).slow_consumer"] = r.droppedSlowConsumer
                out["\(p.status.plugin).undecodable"] = r.undecodable
            }
            if let s = p.sent { out["\(p.status.plugin).send_dropped"] = s.dropped }
            // A plugin's own counters named dropped_<reason> are drops it made itself (the mqtt sink's).
            for (name, n) in p.counters ?? [:] where name.hasPrefix("dropped_") {
                out["\(p.status.plugin).\(name.dropFirst("dropped_".count))"] = n
            }
            // What a service's failed commits lost (a full disk): processed, never published.
            for name in ServiceStateKeeper.Counters.lossNames {
                if let n = p.counters?[name] { out["\(p.status.plugin).\(name)"] = n }
            }
        }
        if let journal { out["journal.not_written"] = journal.notWritten }
        return out
    }
}

extension DaemonReport {
    /// The services' commit counters summed over every service, by name (`state_store` in
    /// `status`, and the metrics).
    var stateStoreTotals: [String: UInt64] {
        var totals: [String: UInt64] = [:]
        for name in ["commits_failed"] + ServiceStateKeeper.Counters.lossNames { totals[name] = 0 }
        for p in plugins {
            for name in totals.keys { totals[name]! += p.counters?[name] ?? 0 }
        }
        return totals
    }

    /// `state_store` in `status`: `ok`, `failing` (a service's last commit failed: `failing`
    /// names each with its error) or `unavailable` (in memory since boot: `degraded` says
    /// why), with the totals of what failed commits lost.
    var stateStoreJSON: JSONValue {
        var o: [String: JSONValue] = stateStoreTotals.mapValues { .number(Double($0)) }
        o["state"] = .string(!stateStore.unavailable.isEmpty ? "unavailable" : stateStore.failing.isEmpty ? "ok" : "failing")
        if !stateStore.failing.isEmpty { o["failing"] = .object(stateStore.failing.mapValues { .string($0) }) }
        o["episodes"] = .number(Double(stateStore.episodes))
        return .object(o)
    }

    /// The `status` control reply.
    var statusJSON: JSONValue {
        func n(_ v: UInt64) -> JSONValue { .number(Double(v)) }
        var dropped: [String: JSONValue] = [:]
        for (k, v) in hub.dropped { dropped[k] = n(v) }
        let states: [JSONValue] = plugins.map { p in
            let s = p.status
            var o: [String: JSONValue] = ["plugin": .string(s.plugin), "kind": .string(s.kind),
                                          "type": .string(s.pluginType), "state": .string(s.state.rawValue),
                                          "restarts": .number(Double(s.restarts))]
            if let r = s.reason { o["reason"] = .string(r) }
            if let d = s.retryIn { o["retry_in"] = .number(d) }
            if let received = p.received {
                // Skipped at the plugin's own subscription: undecodable (a payload that does
                // not decode, e.g. a non-finite number or a latitude past 90) and slow_consumer.
                var r: [String: JSONValue] = [
                    "delivered": n(received.delivered),
                    "dropped": .object(["undecodable": n(received.undecodable),
                                        "slow_consumer": n(received.droppedSlowConsumer)]),
                ]
                if let lag = p.lag { r["lag"] = n(lag) }
                o["received"] = .object(r)
            }
            if let sent = p.sent, p.published > 0 || sent.dropped > 0 {
                // Published by the plugin; dropped at its outlet (the hub's ingest was full).
                o["published"] = .object(["sent": n(sent.sent), "dropped": n(sent.dropped)])
            }
            if let age = p.lastFixAge { o["last_fix_age"] = .number((age * 10).rounded() / 10) }
            if let counters = p.counters, !counters.isEmpty { o["counters"] = .object(counters.mapValues { n($0) }) }
            return .object(o)
        }
        var refused: [String: JSONValue] = [:]
        for r in ControlStatistics.Refusal.allCases { refused[r.rawValue] = n(control.refused[r] ?? 0) }
        var top: [String: JSONValue] = [:]
        if let j = journal {
            var o: [String: JSONValue] = ["appended": n(j.appended), "not_written": n(j.notWritten), "bytes": .number(Double(j.bytes)),
                                          "segments": .number(Double(j.segments)), "segments_deleted": n(j.segmentsDeleted)]
            if let v = j.oldestIndex { o["oldest_index"] = n(v) }
            if let v = j.newestIndex { o["newest_index"] = n(v) }
            if let e = j.writeError { o["write_error"] = .string(e) }
            if let ms = j.oldestAppendedMs { o["oldest_age"] = .number(Double(max(0, readAtMs - ms) / 100) / 10) }
            if let c = catchup {
                o["catchup"] = .object(["pages": n(c.pages), "snapshots": n(c.snapshots), "events": n(c.events),
                                        "refused": n(c.refused), "truncated": n(c.truncated), "damaged": n(c.damaged),
                                        "unsent": n(c.unsent)])
            }
            top["journal"] = .object(o)
        }
        if let degraded = stateStore.degraded { top["degraded"] = .string(degraded) }
        top["state_store"] = stateStoreJSON
        if !restricted.isEmpty {
            top["restricted_endpoints"] = .object(restricted.mapValues { r in
                .object(["forwarded": n(r.forwarded), "missed": n(r.missed), "unreducible": n(r.unreducible)])
            })
        }
        if let c = curve {
            top["curve"] = .object(["accepted": .object(c.accepted.mapValues(n)), "refused": n(c.refused)])
        }
        return .object(top.merging([
            "hub": .object(["protocol": .number(Double(BusProtocol.version)), "forwarded": n(hub.forwarded), "dropped": .object(dropped),
                            "subscriptions": .number(Double(hub.subscriptions)),
                            "subscribers_cut_off": n(hub.subscribersCutOff)]),
            "control": .object(["accepted": n(control.accepted), "in_progress": .number(Double(control.inProgress)),
                                "refused": .object(refused)]),
            "delivery": .object(["waits": n(deliveryWaits)]),
            "plugins": .array(states),
        ]) { a, _ in a })
    }
}
