import Foundation
import LocusCore

/// A request to the catch-up socket (docs/protocol.md 13.2), checked. Anything else is refused
/// with a `catchup.error` naming the problem. (Here, beside the journal it reads, so that the
/// parser of these socket bytes has a fuzz target without the daemon's dependencies.)
public enum CatchupRequest: Equatable, Sendable {
    case page(CatchupPageRequest)
    case snapshot(topics: [String])

    public static let maxLimit = 10_000
    public static let defaultLimit = 1000
    /// Requests are small; anything larger is refused unread by ZeroMQ.
    public static let maxBytes = 65_536

    /// Parses one request frame; the error text is what the client is told.
    public static func parse(_ bytes: [UInt8]) -> Result<CatchupRequest, CatchupRequestError> {
        guard let object = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
            return .failure("the request is not a JSON object")
        }
        guard let version = object["version"] as? Int, version == 1 else { return .failure("version must be 1") }
        let type = object["type"] as? String
        let topics: [String]
        if let t = object["topics"] {
            guard let list = t as? [String], list.count <= 1024, list.allSatisfy({ $0.utf8.count <= Topic.maxLength }) else {
                return .failure("topics must be a list of at most 1024 topic prefixes")
            }
            topics = list
        } else {
            topics = []
        }
        func unknownKeys(_ allowed: Set<String>) -> String? {
            let extra = Set(object.keys).subtracting(allowed)
            return extra.isEmpty ? nil : "unknown field(s): \(extra.sorted().joined(separator: ", "))"
        }
        switch type {
        case "catchup.snapshot":
            if let problem = unknownKeys(["type", "version", "topics"]) { return .failure(problem) }
            return .success(.snapshot(topics: topics))
        case "catchup.request":
            if let problem = unknownKeys(["type", "version", "after", "since", "topics", "token", "cursor", "limit"]) {
                return .failure(problem)
            }
            var request = CatchupPageRequest(topics: topics)
            if let a = object["after"] {
                guard let map = a as? [String: Any], map.count <= 100_000 else {
                    return .failure("after must be an object: producer → sequence number")
                }
                for (producer, value) in map {
                    guard let seq = value as? Int, seq >= 0 else { return .failure("after.\(producer) must be a non-negative integer") }
                    request.after[producer] = UInt64(seq)
                }
            }
            if let s = object["since"] {
                guard let text = s as? String, let ms = Self.milliseconds(text) else {
                    return .failure("since must be an ISO 8601 UTC time such as 2026-11-25T10:00:00Z")
                }
                request.since = ms
            }
            if let t = object["token"] {
                guard let token = t as? String, token.hasPrefix("sync."), token.utf8.count <= 128 else {
                    return .failure("token must be the sync token subscribed, sync.<id>")
                }
                request.token = token
            }
            if let l = object["limit"] {
                guard let limit = l as? Int, (1...maxLimit).contains(limit) else {
                    return .failure("limit must be an integer from 1 to \(maxLimit)")
                }
                request.limit = limit
            }
            if let c = object["cursor"] {
                guard let cursor = CatchupCursor(json: c) else { return .failure("cursor must be a previous page's next, unchanged") }
                request.cursor = cursor
            }
            return .success(.page(request))
        default:
            return .failure("type must be catchup.request or catchup.snapshot")
        }
    }

    /// Milliseconds since 1970 of an ISO 8601 time (fraction and offset optional).
    static func milliseconds(_ text: String) -> Int64? {
        EventTime(iso8601: text)?.milliseconds
    }
}

public struct CatchupRequestError: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
    init(_ text: String) { description = text }
}

extension Result where Failure == CatchupRequestError {
    static func failure(_ text: String) -> Self { .failure(CatchupRequestError(text)) }
}

/// A `catchup.request`'s fields.
public struct CatchupPageRequest: Equatable, Sendable {
    public var after: [String: UInt64] = [:]
    public var since: Int64?
    public var topics: [String]
    public var token: String?
    public var cursor: CatchupCursor?
    public var limit = CatchupRequest.defaultLimit

    public init(topics: [String]) { self.topics = topics }
}

/// Where the next page starts, handed to the client as `next` and back as `cursor`: the
/// journal index and the producers of `after` not yet passed (with the last sequence number
/// of theirs the scan saw, to notice a restart across pages).
public struct CatchupCursor: Equatable, Sendable {
    public var index: UInt64
    public var pending: [String: Pending]

    public struct Pending: Equatable, Sendable {
        public var after: UInt64
        public var last: UInt64

        public init(after: UInt64, last: UInt64) {
            self.after = after
            self.last = last
        }
    }

    public init(index: UInt64, pending: [String: Pending]) {
        self.index = index
        self.pending = pending
    }

    public init?(json: Any) {
        guard let o = json as? [String: Any], Set(o.keys).isSubset(of: ["index", "pending"]),
              let index = o["index"] as? Int, index >= 0 else { return nil }
        self.index = UInt64(index)
        pending = [:]
        if let p = o["pending"] {
            guard let map = p as? [String: Any], map.count <= 100_000 else { return nil }
            for (producer, value) in map {
                guard let v = value as? [String: Any], let after = v["after"] as? Int, after >= 0,
                      let last = v["last"] as? Int, last >= 0 else { return nil }
                pending[producer] = Pending(after: UInt64(after), last: UInt64(last))
            }
        }
    }

    public var json: [String: Any] {
        var o: [String: Any] = ["index": Int(index)]
        o["pending"] = pending.mapValues { ["after": Int($0.after), "last": Int($0.last)] }
        return o
    }
}
