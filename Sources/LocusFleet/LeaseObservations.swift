/// What a member saw of its group's keys: per key, the revision it last read and when, by its
/// own clock, it first read that revision. Leases are judged by this alone: a key whose revision
/// has not changed for `leaseMs` of the reader's own time is expired, whatever its value says.
/// No time another machine wrote (its clock ahead, a forged far-future `expires_ms`) can hold a
/// partition or a place in the group for longer than that.
///
/// Revisions only grow (every write, delete included, gives a key a new one), so seeing the same
/// revision twice, however far apart, means nobody wrote the key in between. Memory follows the
/// store's listing (`keep(only:prefix:)`).
public struct LeaseObservations: Sendable {
    public let leaseMs: Int64
    private var seen: [String: Entry] = [:]

    private struct Entry {
        var revision: UInt64
        var since: Int64
        var staleReported = false
    }

    /// What one sight of a key says.
    public struct Sight: Equatable, Sendable {
        /// A revision this reader had not seen (a write, or the key's first sight).
        public var isNewRevision: Bool
        /// Unchanged for at least `leaseMs`: its writer stopped renewing it.
        public var isStale: Bool
        /// Stale, and this is the first sight that says so (for counting once per revision).
        public var becameStale: Bool
    }

    public init(leaseMs: Int64) { self.leaseMs = leaseMs }

    /// Records that `key` is at `revision` at `now` (the reader's clock, ms), and judges it.
    @discardableResult
    public mutating func see(_ key: String, revision: UInt64, now: Int64) -> Sight {
        guard var e = seen[key], e.revision == revision else {
            seen[key] = Entry(revision: revision, since: now)
            return Sight(isNewRevision: true, isStale: false, becameStale: false)
        }
        let stale = now - e.since >= leaseMs
        let became = stale && !e.staleReported
        if became { e.staleReported = true; seen[key] = e }
        return Sight(isNewRevision: false, isStale: stale, becameStale: became)
    }

    /// Forgets the keys starting with `prefix` that are not in `present` (deleted from the store).
    public mutating func keep(only present: Set<String>, prefix: String) {
        for key in seen.keys where key.hasPrefix(prefix) && !present.contains(key) { seen[key] = nil }
    }

    /// Keys remembered.
    public var count: Int { seen.count }
}
