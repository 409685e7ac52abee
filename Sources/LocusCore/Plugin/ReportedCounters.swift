/// A plugin that counts what it received, skipped or dropped. The runtime shows the counters in
/// `locus ctl status` (the plugin's `counters`) and in metrics
/// (`locus_plugin_counter_total{plugin, counter}`).
///
/// Implementers return cumulative values since the plugin instance started (names in
/// snake_case); reading must be cheap and safe from any thread. A source with
/// `SourceCounters` returns `statistics.counterValues`.
public protocol ReportsCounters {
    var reportedCounters: [String: UInt64] { get }
}

extension SourceCounters {
    /// Every integer field of the counters, by snake_case name; nested structs' fields are
    /// prefixed with the field's name (`decoder_bad_checksum`).
    public var counterValues: [String: UInt64] { CounterFields.flatten(counters) }
}

/// Reads the integer fields of a counters struct by reflection: counters are read on request
/// (`status`, a metrics scrape), never per message, so the cost does not matter and a new field
/// appears without more code.
public enum CounterFields {
    public static func flatten(_ value: Any, prefix: String = "") -> [String: UInt64] {
        var out: [String: UInt64] = [:]
        for child in Mirror(reflecting: value).children {
            guard let label = child.label else { continue }
            let name = prefix + snakeCase(label)
            switch child.value {
            case let n as Int: out[name] = UInt64(max(0, n))
            case let n as Int64: out[name] = UInt64(max(0, n))
            case let n as UInt64: out[name] = n
            case let n as UInt: out[name] = UInt64(n)
            case let n as Int32: out[name] = UInt64(max(0, n))
            case let n as UInt32: out[name] = UInt64(n)
            case is Bool, is String, is Double, is Float: continue
            default:
                for (k, v) in flatten(child.value, prefix: name + "_") { out[k] = v }
            }
        }
        return out
    }

    /// `fixesPublished` → `fixes_published`.
    public static func snakeCase(_ name: String) -> String {
        var out = ""
        for c in name {
            if c.isUppercase {
                if !out.isEmpty { out.append("_") }
                out.append(contentsOf: c.lowercased())
            } else {
                out.append(c)
            }
        }
        return out
    }
}
