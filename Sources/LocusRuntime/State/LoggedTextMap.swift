import LocusCore
import LocusStore

/// A map of short texts the state keeper commits with every batch (input positions, topic
/// sequence numbers), kept in the store as a log: each commit adds one row holding the entries it
/// changed, and once the log holds about `compactionFactor` times the map (and at least
/// `minimumLog` entries), one row with the whole map replaces it in the same transaction.
///
/// Why: a per-device service fed by a fleet changes the position of every device a batch heard
/// from. As one row per entry, a batch of 2,000 devices was 2,000 upserts, which set the fleet
/// bench's latency (p50 186–359 ms with them, 41–61 ms without, 10,000 devices at 30,000 fixes/s).
/// The same holds for the records of a service that change with nearly every message (a fleet
/// device's last fix: `KeyedStatefulService.loggedRecordPrefixes`, and every device of a
/// per-device service): one upsert per device and batch was ~5.8 µs each, ~17 % of a core at
/// 30,000 fixes/s.
/// Rows are keyed by a zero-padded counter so they read back in commit order; a later entry wins,
/// and an entry of `null` deletes its key.
/// Rows of the older one-row-per-entry form (`legacyCollection`) are read first and deleted by
/// the first commit. Public for the `state` fuzz target: the rows are read from a file.
public struct LoggedTextMap {
    public let collection: String
    public let legacyCollection: String
    /// The map as of the last commit plus the entries given since.
    public private(set) var values: [String: String] = [:]
    /// Entries stored in the log rows (the snapshot row included).
    private var loggedEntries = 0
    private var nextRow = 0
    private var legacyRows = false
    /// A log shorter than this is never compacted: a small map is cheap to log.
    static let minimumLog = 1024
    /// How many times the map the log may hold before it is compacted. Each entry is written
    /// once in the log and 1/(factor − 1) times in compactions: at 2 a fleet server rewrote its
    /// 10,000 devices' records (~2.3 MB) three times a second at 30,000 fixes/s; 4 cut its p99
    /// (bench/mqtt-fleet-bench.sh). The cost is a log up to 4 times the map on disk, read at start.
    static let compactionFactor = 4

    public init(collection: String, legacyCollection: String) {
        self.collection = collection
        self.legacyCollection = legacyCollection
    }

    /// Replaces what this map holds with the map as committed in `store`. A row that does not
    /// read is skipped (and deleted by the next compaction); returns how many were.
    public mutating func load(from store: ServiceStateStore) throws -> Int {
        values = try store.textRecords(in: legacyCollection)
        legacyRows = !values.isEmpty
        loggedEntries = 0
        nextRow = 0
        var damaged = 0
        let rows = try store.textRecords(in: collection)
        for key in rows.keys.sorted() {
            guard let row = Self.rowNumber(key), case .object(let entries)? = try? JSONValue.decode(Array(rows[key]!.utf8)) else {
                damaged += 1
                continue
            }
            nextRow = max(nextRow, row + 1)
            for (k, v) in entries {
                if case .null = v {
                    values.removeValue(forKey: k)
                } else if let text = v.stringValue {
                    values[k] = text
                }
            }
            loggedEntries += entries.count
        }
        if damaged > 0 { loggedEntries = .max / 2 }  // compact at the next commit
        return damaged
    }

    /// The counter of a row's key as `put` writes it (19 digits, below 10^18, so the next one
    /// cannot overflow); nil for any other key: a damaged store.
    static func rowNumber(_ key: String) -> Int? {
        guard key.utf8.count == 19, key.utf8.allSatisfy({ (48...57).contains($0) }), let n = Int(key), n < 1_000_000_000_000_000_000
        else { return nil }
        return n
    }

    /// Puts entries from elsewhere (the rows of an earlier form) into the map where it has none,
    /// so that the next commit writes the whole map. The caller deletes where they were, in
    /// that commit.
    public mutating func adopt(_ entries: [String: String]) {
        guard !entries.isEmpty else { return }
        for (k, t) in entries where values[k] == nil { values[k] = t }
        loggedEntries = .max / 2
    }

    /// Whether the next `commit` writes a row even with no entry changed (rows of an earlier
    /// form to replace).
    public var needsCommit: Bool { legacyRows || loggedEntries == .max / 2 }

    /// Adds `changed` to the map and to `changes` (nil deletes a key): one log row, or the whole
    /// map when the log has grown to about `compactionFactor` times its size.
    public mutating func commit(_ changed: [(key: String, text: String?)], into changes: inout StateChanges) {
        if changed.isEmpty && !needsCommit { return }
        for (k, t) in changed { values[k] = t }
        if needsCommit || loggedEntries + changed.count > max(Self.compactionFactor * values.count, Self.minimumLog) {
            changes.deleteAll(in: collection)
            if legacyRows { changes.deleteAll(in: legacyCollection) }
            legacyRows = false
            put(values.lazy.map { (key: $0.key, text: Optional($0.value)) }, count: values.count, into: &changes, reset: true)
        } else {
            put(changed, count: changed.count, into: &changes, reset: false)
        }
    }

    /// One row: a JSON object of `entries` (keys unique: the callers' come from a dictionary or a
    /// set). Written with `JSONWriter`: building a `JSONValue` of a fleet's positions was 3 %
    /// of a fleet server's CPU.
    private mutating func put<S: Sequence>(_ entries: S, count: Int, into changes: inout StateChanges, reset: Bool)
        where S.Element == (key: String, text: String?) {
        var w = JSONWriter(capacity: 64 * count + 2)
        w.beginObject()
        for (k, t) in entries {
            w.key(k)
            if let t { w.string(t) } else { w.null() }
        }
        w.endObject()
        let digits = String(nextRow)
        let key = String(repeating: "0", count: max(0, 19 - digits.count)) + digits
        changes.put(collection, key: key, json: String(decoding: w.bytes, as: UTF8.self))
        nextRow += 1
        loggedEntries = reset ? count : loggedEntries + count
    }
}
