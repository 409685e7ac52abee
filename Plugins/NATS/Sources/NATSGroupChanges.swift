import Logging

/// What a `nats` source says about its group: one info line per round in which something
/// changed (`group membership changed`) — who joined, who left (stopped and deleted its key),
/// who expired (its key stopped changing for `lease_ttl`: killed, paused, cut off), how many
/// partitions this server took and from whom, gave back or lost, and how many it holds now.
/// The partitions themselves are listed at debug level, one line each.
struct NATSGroupChanges {
    /// The live members of the last round; nil before the first.
    private var members: Set<String>?

    /// The line's metadata for one round, or nil when nothing changed. `taken` names each
    /// partition taken with the member it was taken from (nil: never held).
    mutating func round(members now: [String], silent: [String], taken: [String?], released: Int, lost: Int,
                        held: Int) -> Logger.Metadata? {
        let live = Set(now)
        let before = members
        members = live
        let joined = before.map { live.subtracting($0) } ?? []
        let gone = before.map { $0.subtracting(live) } ?? []
        let expired = gone.intersection(silent)
        let left = gone.subtracting(expired)
        guard before == nil || !joined.isEmpty || !gone.isEmpty || !taken.isEmpty || released > 0 || lost > 0 else { return nil }
        var metadata: Logger.Metadata = ["members": "\(now.joined(separator: ","))", "held": "\(held)"]
        if !joined.isEmpty { metadata["joined"] = "\(joined.sorted().joined(separator: ","))" }
        if !left.isEmpty { metadata["left"] = "\(left.sorted().joined(separator: ","))" }
        if !expired.isEmpty { metadata["expired"] = "\(expired.sorted().joined(separator: ","))" }
        if !taken.isEmpty {
            metadata["took"] = "\(taken.count)"
            // "server1:8,new:2": per previous owner, how many; new ones were never held.
            let counts = Dictionary(taken.map { ($0 ?? "new", 1) }, uniquingKeysWith: +)
            metadata["from"] = "\(counts.sorted { $0.key < $1.key }.map { "\($0.key):\($0.value)" }.joined(separator: ","))"
        }
        if released > 0 { metadata["released"] = "\(released)" }
        if lost > 0 { metadata["lost"] = "\(lost)" }
        return metadata
    }
}
