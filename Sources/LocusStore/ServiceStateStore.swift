import Foundation
import GRDB
import LocusCore

/// Crash-safe state for a service plugin that must survive restarts: collections of JSON
/// records, a few meta strings, and an outbox of events, in one SQLite file per service.
///
/// Guarantees (see `README.md` in this folder for the outbox protocol):
/// - `commit` applies its whole batch in one SQLite transaction: after any crash the store
///   holds either all of a batch or none of it.
/// - Process crash (`kill -9`, a trap, an OOM kill) at any moment: every commit that returned
///   is kept. The file uses a write-ahead log with `synchronous=NORMAL`; a committed
///   transaction is in the WAL in the OS page cache before `commit` returns, and SQLite
///   recovers the WAL when the file is next opened.
/// - Power loss or kernel crash: the file is still consistent (all or nothing per batch), but
///   the last commits before the loss may be missing (those since the last WAL sync, at most
///   one checkpoint's worth, about 1000 pages), so a service must tolerate state from a
///   little while ago — which it has to anyway, since its inputs moved on while it was down.
///
/// Threading: every call runs on GRDB's serial queue, so calls from several tasks are safe;
/// the store is meant to be used by the one task that owns the service, with read-only calls
/// (`records`, `meta`, `pendingEnvelopes`) allowed from elsewhere. Calls block the caller
/// for the SQLite work (tens of microseconds for a small commit).
public final class ServiceStateStore: @unchecked Sendable {
    /// `PRAGMA application_id` of every Locus state store: "LOCS" in ASCII.
    static let applicationID: Int32 = 0x4C4F_4353
    /// `PRAGMA user_version`: the schema this build writes. A newer file is refused.
    static let schemaVersion = 1

    /// GRDB's serial queue, where every call runs: guards `isClosed` (and the connection).
    /// `beforeApplyingChange` is set outside it, by tests only, while no commit runs.
    private let queue: DatabaseQueue
    /// Held while the file is open: nil for an in-memory store.
    private let processLock: StoreProcessLock?
    /// Set by `close`. Read and written only on the queue: GRDB 7.10 crashes (a null
    /// connection in SQLite) on `read` after `close`, so every call checks this first.
    private var isClosed = false
    /// The database file, nil for an in-memory store.
    public let path: String?
    /// The service kind the file belongs to ("region", "beacon", …).
    public let kind: String

    /// Test hook: called inside the commit transaction before change number `index` (0-based)
    /// is applied; throwing aborts the commit (so tests can fail a batch half-way).
    var beforeApplyingChange: ((_ index: Int) throws -> Void)?

    /// Opens or creates the database at `path` (creating parent directories, mode 0700 for
    /// those it creates), in WAL mode with `synchronous=NORMAL`, and checks (or, for a new
    /// file, records) that it belongs to a service of `kind`. Throws `StateStoreError` for a
    /// file of another kind, of a newer schema, another program's SQLite file, or a file that
    /// is not a database or is damaged (`PRAGMA quick_check`), and `.inUse` while another
    /// process has it open (see `StoreProcessLock`).
    ///
    /// A store that existed before (its `<path>.created` marker is there) but whose file is now
    /// missing, empty or a database without the schema is refused with `.lost`, and nothing is
    /// created: see `StoreCreationMarker`.
    public convenience init(path: String, kind: String) throws {
        try Self.createDirectory(atPath: (path as NSString).deletingLastPathComponent, storePath: path)
        let lock = try StoreProcessLock(storePath: path)
        let marker = StoreCreationMarker(storePath: path)
        let existedBefore = marker.exists
        if existedBefore {
            var st = stat()
            if stat(path, &st) != 0 { throw marker.lostError("missing") }
            if st.st_size == 0 { throw marker.lostError("empty (0 bytes)") }
        }
        let queue: DatabaseQueue
        do {
            queue = try DatabaseQueue(path: path, configuration: Self.configuration(kind: kind))
        } catch {
            throw Self.openError(error, path: path)
        }
        try self.init(queue: queue, path: path, kind: kind, lock: lock, mustExist: existedBefore)
        // Where the device has been is for this user only, whatever the umask (SQLite creates
        // -wal and -shm with the database file's mode) and whatever an older Locus left.
        for suffix in ["", "-wal", "-shm"] { Self.makePrivate(path + suffix) }
        // New, or made by a Locus before markers: from now on its loss is noticed.
        if !existedBefore {
            do { try marker.write(kind: kind) } catch { try? close(); throw error }
        }
    }

    /// A store that lives in memory only (replays and tests): same behaviour, nothing persisted.
    public static func inMemory(kind: String) throws -> ServiceStateStore {
        let queue = try DatabaseQueue(configuration: configuration(kind: kind))
        return try ServiceStateStore(queue: queue, path: nil, kind: kind, lock: nil)
    }

    private init(queue: DatabaseQueue, path: String?, kind: String, lock: StoreProcessLock?, mustExist: Bool = false) throws {
        self.queue = queue
        self.processLock = lock
        self.path = path
        self.kind = kind
        do {
            try queue.writeWithoutTransaction { db in try Self.prepare(db, path: path, kind: kind, mustExist: mustExist) }
        } catch let error as StateStoreError {
            try? queue.close()
            throw error
        } catch {
            try? queue.close()
            throw Self.openError(error, path: path)
        }
    }

    private static func configuration(kind: String) -> Configuration {
        var config = Configuration()
        config.label = "LocusStore.\(kind)"
        // Only one writer is expected; a short wait covers a reader (a backup, sqlite3) that
        // holds a lock for a moment.
        config.busyMode = .timeout(2)
        return config
    }

    /// Checks the file's identity and creates the schema in a new file. Runs once per open, so
    /// `commit` does no schema work.
    private static func prepare(_ db: Database, path: String?, kind: String, mustExist: Bool) throws {
        func identity() throws -> (applicationID: Int32, version: Int, objects: Int) {
            (try Int32.fetchOne(db, sql: "PRAGMA application_id") ?? 0,
             try Int.fetchOne(db, sql: "PRAGMA user_version") ?? 0,
             try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") ?? 0)
        }
        func check(_ id: (applicationID: Int32, version: Int, objects: Int)) throws -> Bool {
            if id.applicationID == 0, id.version == 0, id.objects == 0 { return true }  // empty: new file
            guard id.applicationID == applicationID, id.version >= 1 else {
                let appID = String(UInt32(bitPattern: id.applicationID), radix: 16)
                throw StateStoreError(.notAStateStore, path: path,
                    "is a SQLite database but not a Locus state store (application_id 0x\(appID), schema version \(id.version), "
                        + "\(id.objects) schema objects); refusing to change it. Give the service another state file, or move this one aside.")
            }
            guard id.version <= schemaVersion else {
                throw StateStoreError(.newerSchema, path: path,
                    "was written by a newer Locus (store schema \(id.version); this build reads up to \(schemaVersion)). "
                        + "Run the newer Locus, or move the file aside to start the service from empty state.")
            }
            return false
        }

        // Identity first, read-only: another program's file must not be switched to WAL.
        if try check(identity()), mustExist, let path {
            throw StoreCreationMarker(storePath: path).lostError("an empty database (no Locus schema)")
        }
        if path != nil {
            let mode = try String.fetchOne(db, sql: "PRAGMA journal_mode = WAL")
            guard mode?.lowercased() == "wal" else {
                throw StateStoreError(.cannotOpen, path: path,
                    "cannot switch to WAL journal mode (got \(mode ?? "nil")); is the file on a filesystem without shared memory support?")
            }
        }
        // Per connection, not stored in the file. In WAL mode a commit appends to the WAL
        // without fsync; the WAL is synced at checkpoints.
        try db.execute(sql: "PRAGMA synchronous = NORMAL")

        var isNew = false
        try db.inTransaction(.immediate) {
            // Again under the write lock: another process may have created it meanwhile.
            isNew = try check(identity())
            if isNew {
                try db.execute(sql: schemaSQL)
                try db.execute(sql: "INSERT INTO locus_store (name, value) VALUES ('kind', ?)", arguments: [kind])
            }
            return .commit
        }
        if !isNew {
            let problems = try String.fetchAll(db, sql: "PRAGMA quick_check")
            guard problems == ["ok"] else {
                throw StateStoreError(.corrupt, path: path,
                    "is damaged (PRAGMA quick_check: \(problems.prefix(3).joined(separator: "; "))). "
                        + "Move it aside (the service then starts from empty state) or restore it from a backup.")
            }
            let stored = try String.fetchOne(db, sql: "SELECT value FROM locus_store WHERE name = 'kind'")
            guard stored == kind else {
                throw StateStoreError(.wrongKind, path: path,
                    "belongs to a \"\(stored ?? "?")\" service, not \"\(kind)\": each service needs its own state file. "
                        + "Check the configuration, or move the file aside.")
            }
        }
    }

    /// Schema version 1. `record` and `meta` are keyed tables without rowid (one B-tree each);
    /// `outbox` uses AUTOINCREMENT so an id is never reused, even after every event was
    /// acknowledged and the process restarted.
    private static let schemaSQL = """
        PRAGMA application_id = \(applicationID);
        PRAGMA user_version = \(schemaVersion);
        CREATE TABLE locus_store (name TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE record (
            collection TEXT NOT NULL CHECK (collection <> ''),
            key TEXT NOT NULL,
            value TEXT NOT NULL,
            PRIMARY KEY (collection, key)
        ) WITHOUT ROWID;
        CREATE TABLE meta (key TEXT PRIMARY KEY NOT NULL, value TEXT NOT NULL) WITHOUT ROWID;
        CREATE TABLE outbox (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            topic TEXT NOT NULL,
            time_ms INTEGER NOT NULL,
            event_type TEXT NOT NULL,
            payload TEXT NOT NULL
        );
        """

    /// Closes the database. Later calls throw. Also happens when the store is deallocated.
    public func close() throws {
        let wasOpen = queue.inDatabase { _ in
            defer { isClosed = true }
            return !isClosed
        }
        guard wasOpen else { return }
        defer { processLock?.release() }
        do { try queue.close() } catch { throw databaseError(error, doing: "close") }
    }

    // MARK: reading

    /// Every record of one collection ("condition", "state", …), key → JSON value, in key
    /// order (byte order of the keys' UTF-8).
    public func records(in collection: String) throws -> [(key: String, value: JSONValue)] {
        let rows = try onQueue("read collection \(collection)") { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT key, value FROM record WHERE collection = ? ORDER BY key"),
                             arguments: [collection])
        }
        return try rows.map { row in
            let key: String = row[0]
            return (key, try decodeJSON(row[1], what: "record \(collection)/\(key)"))
        }
    }

    public func meta(_ key: String) throws -> String? {
        try onQueue("read meta \(key)") { db in
            try String.fetchOne(db.cachedStatement(sql: "SELECT value FROM meta WHERE key = ?"), arguments: [key])
        }
    }

    /// True when `collection` holds no record (one indexed look-up, not a read of them all).
    public func isEmpty(collection: String) throws -> Bool {
        try onQueue("read collection \(collection)") { db in
            try Row.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM record WHERE collection = ? LIMIT 1"), arguments: [collection]) == nil
        }
    }

    /// Every record of one collection as the text stored (`put(_:key:json:)`), key → text.
    public func textRecords(in collection: String) throws -> [String: String] {
        let rows = try onQueue("read collection \(collection)") { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT key, value FROM record WHERE collection = ?"), arguments: [collection])
        }
        var out: [String: String] = [:]
        for row in rows { out[row[0]] = row[1] }
        return out
    }

    /// `event_type` of an outbox row holding one whole envelope, as written before batch rows
    /// (read, no longer written).
    static let envelopeMarker = "locus.envelope"
    /// `event_type` of an outbox row holding a batch of envelopes (`append(envelopes:time:)`).
    static let envelopeBatchMarker = "locus.envelopes"

    /// Envelopes appended with `append(envelopes:time:)` (or one per row, by an earlier version) and
    /// not yet acknowledged, oldest first, each with its row's id (shared by a batch's envelopes)
    /// and the time it was appended with (in milliseconds); `unreadableIDs`: batch rows whose
    /// text does not read (a damaged store), left out.
    public func pendingEnvelopes() throws -> PendingEnvelopes {
        let rows = try onQueue("read outbox") { db in
            try Row.fetchAll(db.cachedStatement(sql: "SELECT id, topic, payload, time_ms, event_type FROM outbox WHERE event_type IN (?, ?) ORDER BY id"),
                             arguments: [Self.envelopeMarker, Self.envelopeBatchMarker])
        }
        var pending = PendingEnvelopes()
        for row in rows {
            let id: Int64 = row[0], committedMs: Int64 = row[3], kind: String = row[4]
            if kind == Self.envelopeMarker {
                pending.envelopes.append((id, row[1], row[2], committedMs))
            } else if let batch = EnvelopeBatch.envelopes(in: row[2]) {
                pending.envelopes += batch.map { (id, $0.topic, $0.body, committedMs) }
            } else {
                pending.unreadableIDs.append(id)
            }
            pending.lastID = id
        }
        return pending
    }

    /// What `pendingEnvelopes()` found.
    public struct PendingEnvelopes: Sendable {
        public var envelopes: [(id: Int64, topic: String, body: String, committedMs: Int64)] = []
        /// The ids of batch rows that did not read (`StateChanges.deleteOutboxRow`); their
        /// envelopes are not in `envelopes`.
        public var unreadableIDs: [Int64] = []
        /// The id of the last row read, readable or not (what to acknowledge through); nil
        /// when the outbox holds no envelope.
        public var lastID: Int64?
    }

    // MARK: writing

    /// Applies every change of `changes` in ONE transaction, in order: all or nothing. On a
    /// throw nothing of the batch was applied and the store is still usable. Returns the ids
    /// given to appended events, in order. An empty batch does nothing.
    @discardableResult
    public func commit(_ changes: StateChanges) throws -> [Int64] {
        if changes.isEmpty { return [] }
        var ids: [Int64] = []
        try onQueue("commit (nothing of the batch was applied)") { db in
            try db.inTransaction(.immediate) {
                for (index, change) in changes.changes.enumerated() {
                    try beforeApplyingChange?(index)
                    try apply(change, index: index, db, ids: &ids)
                }
                return .commit
            }
        }
        return ids
    }

    private func apply(_ change: StateChanges.Change, index: Int, _ db: Database, ids: inout [Int64]) throws {
        switch change {
        case let .put(collection, key, value):
            guard !collection.isEmpty else {
                throw StateStoreError(.invalidValue, path: path,
                    "change \(index) puts key \"\(key)\" in a collection with an empty name; nothing of the batch was applied")
            }
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO record (collection, key, value) VALUES (?, ?, ?)")
                .execute(arguments: [collection, key, try encodeJSON(value, what: "change \(index) (\(collection)/\(key))")])
        case let .delete(collection, key):
            try db.cachedStatement(sql: "DELETE FROM record WHERE collection = ? AND key = ?")
                .execute(arguments: [collection, key])
        case let .deleteAll(collection):
            try db.cachedStatement(sql: "DELETE FROM record WHERE collection = ?").execute(arguments: [collection])
        case let .setMeta(key, value?):
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)").execute(arguments: [key, value])
        case let .setMeta(key, nil):
            try db.cachedStatement(sql: "DELETE FROM meta WHERE key = ?").execute(arguments: [key])
        case let .deleteOutboxRow(id):
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE id = ?").execute(arguments: [id])
        case let .acknowledge(id):
            try db.cachedStatement(sql: "DELETE FROM outbox WHERE id <= ?").execute(arguments: [id])
        case let .putText(collection, key, text):
            guard !collection.isEmpty else {
                throw StateStoreError(.invalidValue, path: path,
                    "change \(index) puts key \"\(key)\" in a collection with an empty name; nothing of the batch was applied")
            }
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO record (collection, key, value) VALUES (?, ?, ?)")
                .execute(arguments: [collection, key, text])
        case let .appendEnvelopes(time, text):
            try db.cachedStatement(sql: "INSERT INTO outbox (topic, time_ms, event_type, payload) VALUES (?, ?, ?, ?)")
                .execute(arguments: ["", time.milliseconds, Self.envelopeBatchMarker, text])
            ids.append(db.lastInsertedRowID)
        }
    }

    // MARK: test support

    /// `PRAGMA integrity_check` (the full check, unlike the quick check run at open).
    func integrityCheck() throws -> [String] {
        try onQueue("integrity check") { db in try String.fetchAll(db, sql: "PRAGMA integrity_check") }
    }

    /// The value of a PRAGMA on the store's connection (`journal_mode`, `synchronous`, …).
    func pragma(_ name: String) throws -> String? {
        try onQueue("pragma") { db in try String.fetchOne(db, sql: "PRAGMA \(name)") }
    }

    /// Runs raw SQL outside any batch (tests use it to fake foreign or newer files).
    func executeForTesting(_ sql: String) throws {
        try onQueue("execute") { db in try db.execute(sql: sql) }
    }

    // MARK: helpers

    /// Runs `body` on GRDB's serial queue, after checking the store is open; maps errors to
    /// `StateStoreError`. Single statements need no transaction to read consistently.
    private func onQueue<T>(_ what: String, _ body: (Database) throws -> T) throws -> T {
        do {
            return try queue.inDatabase { db in
                guard !isClosed else { throw StateStoreError(.database, path: path, "\(what) failed: the store is closed") }
                return try body(db)
            }
        } catch let error as StateStoreError {
            throw error
        } catch {
            throw databaseError(error, doing: what)
        }
    }

    private func encodeJSON(_ value: JSONValue, what: String) throws -> String {
        do { return try value.storeText() } catch let e as JSONValue.UnrepresentableNumber {
            throw StateStoreError(.invalidValue, path: path,
                "\(what) holds the number \(e.value), which JSON cannot represent; nothing of the batch was applied")
        }
    }

    private func decodeJSON(_ text: String, what: String) throws -> JSONValue {
        do { return try JSONValue.fromStoreText(text) } catch {
            throw StateStoreError(.corrupt, path: path, "\(what) is not valid JSON (\(text.prefix(80))): the file was changed outside Locus")
        }
    }

    private func databaseError(_ error: any Error, doing what: String) -> StateStoreError {
        if let e = error as? DatabaseError, e.resultCode == .SQLITE_CORRUPT || e.resultCode == .SQLITE_NOTADB {
            return StateStoreError(.corrupt, path: path, "\(what) failed: the file is damaged (\(Self.sqliteMessage(e))). "
                + "Move it aside (the service then starts from empty state) or restore it from a backup.")
        }
        let detail = (error as? DatabaseError).map(Self.sqliteMessage) ?? "\(error)"
        return StateStoreError(.database, path: path, "\(what) failed: \(detail)")
    }

    private static func sqliteMessage(_ e: DatabaseError) -> String {
        "SQLite error \(e.extendedResultCode.rawValue): \(e.message ?? "\(e.resultCode)")"
    }

    private static func openError(_ error: any Error, path: String?) -> StateStoreError {
        if let e = error as? StateStoreError { return e }
        guard let e = error as? DatabaseError else {
            return StateStoreError(.cannotOpen, path: path, "cannot open: \(error)")
        }
        switch e.resultCode {
        case .SQLITE_NOTADB, .SQLITE_CORRUPT:
            return StateStoreError(.corrupt, path: path,
                "is not a SQLite database, or is damaged (\(sqliteMessage(e))). "
                    + "Move it aside (the service then starts from empty state) or restore it from a backup.")
        default:
            return StateStoreError(.cannotOpen, path: path,
                "cannot open (\(sqliteMessage(e))); check that the directory exists and this user may write there")
        }
    }

    /// Takes group and other permissions off the file at `path`, if it exists.
    static func makePrivate(_ path: String) {
        var st = stat()
        guard stat(path, &st) == 0, st.st_mode & 0o077 != 0 else { return }
        chmod(path, st.st_mode & 0o700)
    }

    /// Creates `dir` and any missing parents with mode 0700: the state says where the device
    /// has been, which other local users need not read.
    private static func createDirectory(atPath dir: String, storePath: String) throws {
        if dir.isEmpty || dir == "/" { return }
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: dir, isDirectory: &isDirectory) {
            guard isDirectory.boolValue else {
                throw StateStoreError(.cannotOpen, path: storePath, "cannot create its directory: \(dir) exists and is not a directory")
            }
            return
        }
        try createDirectory(atPath: (dir as NSString).deletingLastPathComponent, storePath: storePath)
        if mkdir(dir, 0o700) != 0, errno != EEXIST {
            throw StateStoreError(.cannotOpen, path: storePath,
                "cannot create directory \(dir): \(String(cString: strerror(errno))); check the permissions of its parent")
        }
    }
}
