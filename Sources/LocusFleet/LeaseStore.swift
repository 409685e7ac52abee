/// A key-value store with revisions and compare-and-set, as a JetStream key-value bucket is:
/// every write gives the key a new revision, and a conditional write succeeds only when the key
/// is still at the revision the writer read. Partition leases rely on nothing else.
///
/// An implementer must make `create` fail when the key exists, and `update`/`delete` fail when
/// the key's revision is not `expected` (or the key is gone), returning `.conflict` — never
/// overwrite. Errors of the store itself (unreachable) are thrown.
public protocol LeaseStore: AnyObject {
    /// The key's value and revision, or nil when it does not exist.
    func get(_ key: String) throws -> (value: [UInt8], revision: UInt64)?
    /// The keys that start with `prefix`, with values and revisions.
    func list(prefix: String) throws -> [(key: String, value: [UInt8], revision: UInt64)]
    /// Creates `key`; `.conflict` when it exists.
    func create(_ key: String, _ value: [UInt8]) throws -> LeaseWrite
    /// Replaces `key`'s value if its revision is still `expected`.
    func update(_ key: String, _ value: [UInt8], expected: UInt64) throws -> LeaseWrite
    /// Deletes `key` if its revision is still `expected`.
    func delete(_ key: String, expected: UInt64) throws -> LeaseWrite
}

/// What a conditional write did.
public enum LeaseWrite: Equatable, Sendable {
    /// Written; the key's new revision.
    case written(revision: UInt64)
    /// Someone else wrote the key since it was read (or created it first): nothing changed.
    case conflict
}
