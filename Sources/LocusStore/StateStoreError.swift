/// Why a `ServiceStateStore` could not be opened or could not commit. `description` is a
/// complete message for a log or the console: it names the file and says what to do.
public struct StateStoreError: Error, CustomStringConvertible, Sendable {
    public enum Code: String, Sendable {
        /// The file is not a SQLite database, or SQLite found it damaged (including a failed
        /// `PRAGMA quick_check` at open).
        case corrupt
        /// A SQLite database, but not a Locus state store (another program's file).
        case notAStateStore
        /// A Locus state store written for another kind of service.
        case wrongKind
        /// Written by a newer Locus with a schema this build does not know.
        case newerSchema
        /// The file or its directory could not be created or opened.
        case cannotOpen
        /// Another process has the store open (its lock file `<path>.lock` is locked).
        case inUse
        /// The file is missing or empty although the store existed before (its
        /// `<path>.created` marker is there): refused rather than silently started empty.
        case lost
        /// A value cannot be stored (a NaN or infinite number in a JSON value, an empty
        /// collection name); nothing of the batch was applied.
        case invalidValue
        /// SQLite failed during a read or a commit (disk full, I/O error, closed store);
        /// nothing of a failed batch was applied.
        case database
    }

    public var code: Code
    /// The database file, nil for an in-memory store.
    public var path: String?
    public var message: String

    public init(_ code: Code, path: String?, _ message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    public var description: String {
        "state store \(path ?? ":memory:"): \(message)"
    }
}
