/// A `LeaseStore` in memory, for tests and for a group of one process. Revisions count up across
/// the whole store, as a JetStream stream's sequence does.
public final class MemoryLeaseStore: LeaseStore {
    private var entries: [String: (value: [UInt8], revision: UInt64)] = [:]
    private var lastRevision: UInt64 = 0
    /// Set to make every call throw (a store that cannot be reached).
    public var unreachable = false

    public init() {}

    public struct Unreachable: Error {}

    public func get(_ key: String) throws -> (value: [UInt8], revision: UInt64)? {
        if unreachable { throw Unreachable() }
        return entries[key]
    }

    public func list(prefix: String) throws -> [(key: String, value: [UInt8], revision: UInt64)] {
        if unreachable { throw Unreachable() }
        return entries.filter { $0.key.hasPrefix(prefix) }.sorted { $0.key < $1.key }.map { ($0.key, $0.value.value, $0.value.revision) }
    }

    public func create(_ key: String, _ value: [UInt8]) throws -> LeaseWrite {
        if unreachable { throw Unreachable() }
        guard entries[key] == nil else { return .conflict }
        return write(key, value)
    }

    public func update(_ key: String, _ value: [UInt8], expected: UInt64) throws -> LeaseWrite {
        if unreachable { throw Unreachable() }
        guard entries[key]?.revision == expected else { return .conflict }
        return write(key, value)
    }

    public func delete(_ key: String, expected: UInt64) throws -> LeaseWrite {
        if unreachable { throw Unreachable() }
        guard entries[key]?.revision == expected else { return .conflict }
        entries[key] = nil
        lastRevision += 1
        return .written(revision: lastRevision)
    }

    private func write(_ key: String, _ value: [UInt8]) -> LeaseWrite {
        lastRevision += 1
        entries[key] = (value, lastRevision)
        return .written(revision: lastRevision)
    }
}
