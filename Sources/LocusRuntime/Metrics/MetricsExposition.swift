import Foundation
import LocusStore
import LocusBus
import LocusCore
import Prometheus

/// Turns `DaemonReport`s into the Prometheus text exposition format (0.0.4) through
/// swift-prometheus's registry. The daemon's counters are cumulative snapshots, so each render
/// moves every Prometheus counter by what its source counted since the previous render (a
/// source that started again from zero — a restarted plugin's own counters — resets it).
///
/// Names and labels are documented in docs/protocol.md (Metrics). Thread-safe.
public final class MetricsExposition: @unchecked Sendable {
    private let registry = PrometheusCollectorRegistry()
    /// Guards `counters` and `gauges` (and serialises use of `registry`).
    private let lock = NSLock()
    private var counters: [String: (counter: Counter, last: UInt64)] = [:]
    private var gauges: [String: Gauge] = [:]

    public init() {}

    /// The exposition for `report`, as served on `hub.metrics` and by `locus ctl metrics`.
    public func render(_ report: DaemonReport) -> [UInt8] {
        lock.lock()
        defer { lock.unlock() }
        record(report)
        return registry.emitToBuffer()
    }

    /// The content type of the exposition.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private func record(_ r: DaemonReport) {
        gauge("locus_uptime_seconds", "Seconds since the daemon started.", [], r.uptime)
        counter("locus_hub_forwarded_total", "Messages the hub checked and forwarded to subscribers.", [], r.hub.forwarded)
        for reason in DropReason.allCases {
            counter("locus_hub_dropped_total", "Messages the hub refused, by reason (docs/protocol.md 4.3).",
                    [("reason", reason.rawValue)], r.hub.dropped(reason))
        }
        gauge("locus_hub_subscriptions", "Distinct topic prefixes outside subscribers hold.", [], Double(r.hub.subscriptions))
        counter("locus_hub_subscribers_cut_off_total", "Outside subscriber connections closed for flooding subscriptions.",
                [], r.hub.subscribersCutOff)
        counter("locus_control_requests_total", "Control requests handed to their command.", [], r.control.accepted)
        for refusal in ControlStatistics.Refusal.allCases {
            counter("locus_control_refused_total", "Control requests refused before their command, by reason.",
                    [("reason", refusal.rawValue)], r.control.refused[refusal] ?? 0)
        }
        if let j = r.journal {
            counter("locus_journal_appended_total", "Messages appended to the journal.", [], j.appended)
            counter("locus_journal_not_written_total", "Messages the journal could not write (forwarded anyway).", [], j.notWritten)
            gauge("locus_journal_bytes", "Size of the journal's segment files.", [], Double(j.bytes))
            gauge("locus_journal_segments", "Segment files of the journal.", [], Double(j.segments))
            if let ms = j.oldestAppendedMs {
                gauge("locus_journal_oldest_timestamp_seconds", "When the oldest record retained was journaled (Unix time).", [], Double(ms) / 1000)
                gauge("locus_journal_oldest_age_seconds", "Age of the oldest record retained.", [], Double(max(0, r.readAtMs - ms)) / 1000)
            }
            if let c = r.catchup {
                counter("locus_catchup_pages_total", "Catch-up pages and snapshots served.", [], c.pages + c.snapshots)
                counter("locus_catchup_events_total", "Events served by the catch-up socket.", [], c.events)
                counter("locus_catchup_refused_total", "Catch-up requests answered with catchup.error.", [], c.refused)
                counter("locus_catchup_truncated_total", "Catch-up pages with a gap the journal cannot fill (retention or damage).", [], c.truncated)
                counter("locus_catchup_damaged_total", "Journal records lost to damage that catch-up pages would have served.", [], c.damaged)
                counter("locus_catchup_unsent_total", "Catch-up replies not sent because the client's queue was full.", [], c.unsent)
            }
        }
        for (endpoint, s) in r.restricted.sorted(by: { $0.key < $1.key }) {
            let e = [("endpoint", endpoint)]
            counter("locus_restricted_forwarded_total", "Messages sent on a publish endpoint with topics/precision.", e, s.forwarded)
            counter("locus_restricted_missed_total", "Messages a restricted publish endpoint's relay fell too far behind to send.", e, s.missed)
            counter("locus_restricted_unreducible_total", "Messages not sent on a precision endpoint because their payload could not be reduced.", e, s.unreducible)
        }
        if let c = r.curve {
            for (client, count) in c.accepted.sorted(by: { $0.key < $1.key }) {
                counter("locus_curve_connections_total", "CURVE connections accepted, by client key name (authorized_keys).",
                        [("client", client)], count)
            }
            counter("locus_curve_refused_total", "CURVE connections refused: key not in authorized_keys, or not a CURVE client.",
                    [], c.refused)
        }
        gauge("locus_state_store_degraded", "1 while the services' state and the journal are kept in memory only (the state directory could not be written at boot).",
              [], r.stateStore.unavailable.isEmpty ? 0 : 1)
        gauge("locus_state_store_failing", "Services whose last state commit failed (a full disk).", [], Double(r.stateStore.failing.count))
        for (name, value) in r.stateStoreTotals.sorted(by: { $0.key < $1.key }) {
            counter("locus_state_store_\(name)_total", "Summed over services: \(name) (docs/writing-plugins.md, State).", [], value)
        }
        counter("locus_delivery_waits_total", "Times a source reading a file waited for in-process services and sinks to catch up.",
                [], r.deliveryWaits)
        for p in r.plugins {
            let id = p.status.plugin
            let plugin = [("plugin", id)]
            for state in PluginStatus.State.allCases {
                gauge("locus_plugin_state", "1 for the state each plugin is in, 0 for the others.",
                      [("plugin", id), ("kind", p.status.kind), ("type", p.status.pluginType), ("state", state.rawValue)],
                      p.status.state == state ? 1 : 0)
            }
            counter("locus_plugin_restarts_total", "Times the runtime restarted the plugin after a failure.", plugin,
                    UInt64(max(0, p.status.restarts)))
            if let received = p.received {
                counter("locus_plugin_received_total", "Messages the plugin's subscription delivered to it.", plugin, received.delivered)
                counter("locus_plugin_dropped_total", "Messages lost at the plugin, by reason.",
                        [("plugin", id), ("reason", "slow_consumer")], received.droppedSlowConsumer)
                counter("locus_plugin_dropped_total", "Messages lost at the plugin, by reason.",
                        [("plugin", id), ("reason", "undecodable")], received.undecodable)
            }
            if let lag = p.lag {
                gauge("locus_plugin_lag", "How far the plugin's subscription is behind its in-process producers, in sequence numbers.",
                      plugin, Double(lag))
            }
            if let sent = p.sent {
                counter("locus_plugin_published_total", "Messages the plugin published.", plugin, p.published)
                counter("locus_plugin_dropped_total", "Messages lost at the plugin, by reason.",
                        [("plugin", id), ("reason", "send_dropped")], sent.dropped)
            }
            if p.status.kind == "source" {
                counter("locus_source_fixes_total", "obs.fix messages the source published (rate() gives fixes per second).",
                        plugin, p.fixes)
                if let age = p.lastFixAge {
                    gauge("locus_source_last_fix_age_seconds", "Seconds since the source last published a fix.", plugin, age)
                }
            }
            for (name, value) in (p.counters ?? [:]).sorted(by: { $0.key < $1.key }) {
                counter("locus_plugin_counter_total", "The plugin's own counters (what it received, skipped, dropped).",
                        [("plugin", id), ("counter", name)], value)
            }
        }
        if let rss = Self.residentBytes() {
            gauge("process_resident_memory_bytes", "Resident memory size in bytes.", [], Double(rss))
        }
    }

    private func key(_ name: String, _ labels: [(String, String)]) -> String {
        labels.reduce(name) { $0 + "\u{1}" + $1.0 + "=" + $1.1 }
    }

    private func counter(_ name: String, _ help: String, _ labels: [(String, String)], _ value: UInt64) {
        let k = key(name, labels)
        let entry = counters[k] ?? (registry.makeCounter(descriptor: Self.descriptor(name, help), labels: labels), 0)
        if value >= entry.last {
            if value > entry.last { entry.counter.increment(by: Int64(clamping: value - entry.last)) }
        } else {
            entry.counter.reset()
            entry.counter.increment(by: Int64(clamping: value))
        }
        counters[k] = (entry.counter, value)
    }

    private func gauge(_ name: String, _ help: String, _ labels: [(String, String)], _ value: Double) {
        let k = key(name, labels)
        let g = gauges[k] ?? registry.makeGauge(descriptor: Self.descriptor(name, help), labels: labels)
        gauges[k] = g
        g.set(value)
    }

    private static func descriptor(_ name: String, _ help: String) -> MetricNameDescriptor {
        MetricNameDescriptor(metricName: name, unitName: "", helpText: help)
    }

    /// From /proc/self/statm (pages × page size); nil where it cannot be read.
    static func residentBytes() -> UInt64? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = UInt64(fields[1]) else { return nil }
        return pages * UInt64(sysconf(Int32(_SC_PAGESIZE)))
    }
}
