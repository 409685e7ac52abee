import Glibc
import CNATS
import LocusFleet

/// A JetStream key-value bucket as a `LeaseStore`: the partition leases of a group of servers.
/// Conditional writes are publishes to the bucket's subject with the key's expected last
/// sequence, so a conflict is JetStream's own "wrong last sequence" (10071), never a guess from
/// an error text. It belongs to its connection's thread.
public final class JetStreamKeyValue: LeaseStore {
    private let connection: NATSConnection
    private let store: OpaquePointer
    public let bucket: String

    /// Opens `bucket`, creating it (one value per key, on disk, `replicas` copies) when missing.
    public init(connection: NATSConnection, bucket: String, replicas: Int = 1) throws {
        self.connection = connection
        self.bucket = bucket
        var store: OpaquePointer?
        var status = js_KeyValue(&store, connection.jetStream, bucket)
        if status != NATS_OK {
            var config = kvConfig()
            kvConfig_Init(&config)
            let name = strdup(bucket)
            defer { free(name) }
            config.Bucket = UnsafePointer(name)
            config.History = 1
            config.Replicas = Int32(replicas)
            config.StorageType = js_FileStorage
            status = js_CreateKeyValue(&store, connection.jetStream, &config)
            // Another server created it first.
            if status != NATS_OK { status = js_KeyValue(&store, connection.jetStream, bucket) }
        }
        try check(status, "open key-value bucket \(bucket)")
        guard let store else { throw NATSError(operation: "open key-value bucket \(bucket)", message: "no bucket") }
        self.store = store
    }

    deinit { kvStore_Destroy(store) }

    private func subject(_ key: String) -> String { "$KV.\(bucket).\(key)" }

    public func get(_ key: String) throws -> (value: [UInt8], revision: UInt64)? {
        var entry: OpaquePointer?
        let status = kvStore_Get(&entry, store, key)
        if status == NATS_NOT_FOUND { return nil }
        try check(status, "read \(key) from \(bucket)")
        defer { kvEntry_Destroy(entry) }
        let length = Int(kvEntry_ValueLen(entry))
        let value = kvEntry_Value(entry).map { Array(UnsafeRawBufferPointer(start: $0, count: length)) } ?? []
        return (value, kvEntry_Revision(entry))
    }

    public func list(prefix: String) throws -> [(key: String, value: [UInt8], revision: UInt64)] {
        // From the stream's subjects, not kvStore_Keys: that reads through a consumer, which
        // nats-server 2.9 may place on a node that is down, and then it only times out.
        let base = "$KV.\(bucket)."
        let keys = try connection.subjects(of: "KV_\(bucket)", matching: base + ">").map { String($0.dropFirst(base.count)) }
        // A key deleted between the listing and the read is simply not there.
        return try keys.filter { $0.hasPrefix(prefix) }.sorted().compactMap { key in try get(key).map { (key, $0.value, $0.revision) } }
    }

    public func create(_ key: String, _ value: [UInt8]) throws -> LeaseWrite {
        do {
            return try write(key, value, expected: 0)
        } catch let error as NATSError where error.isWrongLastSequence {
            // The key has a last message; it is free only when that message is a delete marker.
            guard let marker = try deleteMarker(key) else { return .conflict }
            return try write(key, value, expected: marker)
        }
    }

    public func update(_ key: String, _ value: [UInt8], expected: UInt64) throws -> LeaseWrite {
        do {
            return try write(key, value, expected: expected)
        } catch let error as NATSError where error.isWrongLastSequence {
            return .conflict
        }
    }

    public func delete(_ key: String, expected: UInt64) throws -> LeaseWrite {
        var message: OpaquePointer?
        try check(natsMsg_Create(&message, subject(key), nil, nil, 0), "delete \(key)")
        defer { natsMsg_Destroy(message) }
        try check(natsMsgHeader_Set(message, "KV-Operation", "DEL"), "delete \(key)")
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        options.ExpectLastSubjectSeq = expected
        var ack: UnsafeMutablePointer<jsPubAck>?
        var code = jsErrCode(0)
        let status = js_PublishMsg(&ack, connection.jetStream, message, &options, &code)
        if code == JSStreamWrongLastSequenceErr { return .conflict }
        try check(status, "delete \(key) from \(bucket)", code: code)
        defer { jsPubAck_Destroy(ack) }
        return .written(revision: ack?.pointee.Sequence ?? 0)
    }

    private func write(_ key: String, _ value: [UInt8], expected: UInt64) throws -> LeaseWrite {
        .written(revision: try connection.publish(subject(key), value, expectLastSubjectSequence: expected).sequence)
    }

    /// The sequence of the key's last message when it is a delete or purge marker.
    private func deleteMarker(_ key: String) throws -> UInt64? {
        var message: OpaquePointer?
        var code = jsErrCode(0)
        let status = js_GetLastMsg(&message, connection.jetStream, "KV_\(bucket)", subject(key), nil, &code)
        if status == NATS_NOT_FOUND { return nil }
        try check(status, "read the last value of \(key)", code: code)
        defer { natsMsg_Destroy(message) }
        var operation: UnsafePointer<CChar>?
        guard natsMsgHeader_Get(message, "KV-Operation", &operation) == NATS_OK, let operation else { return nil }
        let name = String(cString: operation)
        return name == "DEL" || name == "PURGE" ? natsMsg_GetSequence(message) : nil
    }
}
