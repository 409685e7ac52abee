/// An MQTT topic filter (MQTT 3.1.1 section 4.7, MQTT 5 section 4.7): levels split at `/`,
/// `+` matching exactly one level, `#` as the last level matching that level's parent and
/// everything below it. Used by the `mqtt` source's `ignore_topics`, which the broker cannot
/// do: a subscription has no "except".
struct MQTTTopicFilter: Sendable, Equatable {
    let levels: [Substring]

    /// - Throws: nothing; call `problem(in:)` first (the configuration does).
    init(_ filter: String) {
        levels = filter.split(separator: "/", omittingEmptySubsequences: false)
    }

    /// Whether `topic` (a published topic, without wildcards) matches. As brokers do, a
    /// leading wildcard does not match a topic starting with `$` (`$SYS/…`).
    func matches(_ topic: String) -> Bool {
        let parts = topic.split(separator: "/", omittingEmptySubsequences: false)
        if topic.hasPrefix("$"), let first = levels.first, first == "+" || first == "#" { return false }
        for (i, level) in levels.enumerated() {
            if level == "#" { return true }
            guard i < parts.count else { return false }
            if level != "+" && level != parts[i] { return false }
        }
        return levels.count == parts.count
    }

    /// Why `filter` is not a valid MQTT topic filter, or nil.
    static func problem(in filter: String) -> String? {
        if filter.isEmpty { return "'\(filter)' is empty" }
        let levels = filter.split(separator: "/", omittingEmptySubsequences: false)
        for (i, level) in levels.enumerated() {
            if level.contains("#") && (level != "#" || i != levels.count - 1) {
                return "'\(filter)': '#' must be a whole level, the last one"
            }
            if level.contains("+") && level != "+" { return "'\(filter)': '+' must be a whole level" }
        }
        return nil
    }
}
