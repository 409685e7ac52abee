// TEMPORARY in-memory stand-in with the agreed API, replaced by the GRDB store on merge.
import Foundation
import GRDB
import LocusCore

public struct StoredEvent: Sendable, Equatable {
    public var id: Int64
    public var topic: String
    public var time: EventTime
    public var eventType: String
    public var payload: JSONValue
    public init(id: Int64 = 0, topic: String, time: EventTime, eventType: String, payload: JSONValue) {
        self.id = id; self.topic = topic; self.time = time; self.eventType = eventType; self.payload = payload
    }
}

public struct StateChanges: Sendable {
    enum Op: Sendable { case put(String, String, JSONValue), delete(String, String), deleteAll(String), meta(String, String?), append(StoredEvent), ack(Int64) }
    var ops: [Op] = []
    public init() {}
    public var isEmpty: Bool { ops.isEmpty }
    public mutating func put(_ collection: String, key: String, value: JSONValue) { ops.append(.put(collection, key, value)) }
    public mutating func delete(_ collection: String, key: String) { ops.append(.delete(collection, key)) }
    public mutating func deleteAll(in collection: String) { ops.append(.deleteAll(collection)) }
    public mutating func setMeta(_ key: String, _ value: String?) { ops.append(.meta(key, value)) }
    public mutating func append(_ event: StoredEvent) { ops.append(.append(event)) }
    public mutating func acknowledge(through id: Int64) { ops.append(.ack(id)) }
}

public final class ServiceStateStore: @unchecked Sendable {
    var data: [String: [String: JSONValue]] = [:]
    var metas: [String: String] = [:]
    var outbox: [StoredEvent] = []
    var next: Int64 = 1
    public let path: String?
    public init(path: String, kind: String) throws { self.path = path }
    private init() { path = nil }
    public static func inMemory(kind: String) throws -> ServiceStateStore { ServiceStateStore() }
    public func records(in collection: String) throws -> [(key: String, value: JSONValue)] {
        (data[collection] ?? [:]).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }
    public func meta(_ key: String) throws -> String? { metas[key] }
    public func unacknowledgedEvents() throws -> [StoredEvent] { outbox }
    @discardableResult public func commit(_ changes: StateChanges) throws -> [Int64] {
        var ids: [Int64] = []
        for op in changes.ops {
            switch op {
            case .put(let c, let k, let v): data[c, default: [:]][k] = v
            case .delete(let c, let k): data[c]?[k] = nil
            case .deleteAll(let c): data[c] = nil
            case .meta(let k, let v): metas[k] = v
            case .append(var e): e.id = next; next += 1; outbox.append(e); ids.append(e.id)
            case .ack(let id): outbox.removeAll { $0.id <= id }
            }
        }
        return ids
    }
}
