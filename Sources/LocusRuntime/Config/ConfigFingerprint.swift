import Yams

/// A short text that changes when a plugin entry's configuration changes: stored with a
/// service's state (`ServiceStateKeeper`), so a start can say that the configuration changed
/// since the state was saved (issue 50).
///
/// Computed from the entry's own keys as the loader read them (`${VAR}` substituted, YAML merge
/// keys applied), keys in sorted order, so reordering keys, comments and layout change nothing;
/// `id` and `enabled` are left out, `per_device` and `max_devices` are in. Not a file a key
/// names (a region's GeoJSON file): a service that reads one compares what it read itself.
enum ConfigFingerprint {
    static func of(_ node: Node, perDevice: Bool, maxDevices: Int) -> String {
        var text = "per_device=\(perDevice);max_devices=\(perDevice ? maxDevices : 0);"
        canonical(node, into: &text)
        return StableHash.hex(text)
    }

    private static func canonical(_ node: Node, into text: inout String) {
        switch node {
        case .scalar(let s):
            text += "s" + String(s.string.utf8.count) + ":" + s.string
        case .sequence(let seq):
            text += "["
            for item in seq { canonical(item, into: &text); text += "," }
            text += "]"
        case .mapping(let m):
            var entries: [(key: String, value: Node)] = []
            for pair in ConfigYAML.pairs(m) {
                var key = ""
                canonical(pair.key, into: &key)
                entries.append((key, pair.value))
            }
            text += "{"
            for entry in entries.sorted(by: { $0.key < $1.key }) {
                text += entry.key + "="
                canonical(entry.value, into: &text)
                text += ";"
            }
            text += "}"
        default:
            // An alias is resolved before a plugin reads its keys; unseen here.
            text += "?"
        }
    }
}
