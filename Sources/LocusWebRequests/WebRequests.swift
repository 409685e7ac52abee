import Foundation
import LocusCore

// What the web gateway reads from its clients besides HTTP itself (which Hummingbird parses):
// query strings, WebSocket requests and event ids. Kept apart from the server so that the
// fuzz target (Fuzz/, LocusWebFuzz) can run them without a network stack.

/// A request's query (`a=1&b=x%2Cy`), percent-decoded; the first of repeated names wins.
public enum QueryItems {
    public static func parse(_ query: String?) -> [String: String] {
        var out: [String: String] = [:]
        for pair in (query ?? "").split(separator: "&") {
            let kv = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(kv[0]), value = kv.count > 1 ? decode(kv[1]) : ""
            if out[name] == nil { out[name] = value }
        }
        return out
    }

    public static func decode(_ s: Substring) -> String {
        let plus = s.replacingOccurrences(of: "+", with: " ")
        return plus.removingPercentEncoding ?? plus
    }

    /// `a.,b.` as topic prefixes: `topics` nil when empty (everything); `bad` the first that is not one.
    public static func topics(_ text: String?) -> (topics: [String]?, bad: String?) {
        guard let text, !text.isEmpty else { return (nil, nil) }
        let list = text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        if let bad = list.first(where: { !Topic.isValidPrefix($0) }) { return (nil, bad) }
        return (list.isEmpty ? nil : list, nil)
    }

    /// A request target's path and query (`/ws?token=x` → ("/ws", "token=x")).
    public static func split(target: String) -> (path: String, query: String?) {
        guard let q = target.firstIndex(of: "?") else { return (target, nil) }
        return (String(target[..<q]), String(target[target.index(after: q)...]))
    }
}

/// A WebSocket client's request: `{"subscribe":[prefixes]}` or `{"unsubscribe":[prefixes]}`.
public enum WebSocketRequest {
    public static let maxTopics = 100

    public static func apply(_ text: String, to topics: inout [String]) -> (json: [UInt8], bad: Bool) {
        func error(_ m: String) -> ([UInt8], Bool) { (JSONValue.object(["error": .string(m)]).encoded(), true) }
        guard let v = try? JSONValue.read(Array(text.utf8)), case .object(let o) = v else {
            return error("send {\"subscribe\":[\"region.\"]} or {\"unsubscribe\":[…]}")
        }
        for key in o.keys where key != "subscribe" && key != "unsubscribe" {
            return error("unknown key '\(key)'; only subscribe and unsubscribe")
        }
        var next = topics
        for (key, add) in [("unsubscribe", false), ("subscribe", true)] {
            guard let raw = o[key] else { continue }
            guard case .array(let items) = raw else { return error("\(key) takes a list of topic prefixes") }
            for item in items {
                guard let p = item.stringValue, Topic.isValidPrefix(p) || p.isEmpty else {
                    return error("'\(item.stringValue ?? "?")' is not a topic prefix")
                }
                if add { if !next.contains(p) { next.append(p) } } else { next.removeAll { $0 == p } }
            }
        }
        guard next.count <= maxTopics else { return error("at most \(maxTopics) topic prefixes") }
        topics = next
        return (JSONValue.object(["subscribed": .array(next.map { .string($0) })]).encoded(), false)
    }
}

/// A client's `Last-Event-ID` (or `?last_event_id=`): the journal index of the last event it
/// got. nil for none (empty); `.failure` for anything that is not one.
public enum LastEventID {
    public static func parse(_ text: String?) -> Result<UInt64?, LastEventIDError> {
        guard let text, !text.isEmpty else { return .success(nil) }
        // An id as this gateway writes them: digits, no sign, no leading zero (UInt64 reads
        // "+68" and "007" too; the fuzz target found both).
        guard text.utf8.count <= 20, text.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
              text == "0" || !text.hasPrefix("0"), let n = UInt64(text) else {
            return .failure(LastEventIDError())
        }
        return .success(n)
    }
}

public struct LastEventIDError: Error, CustomStringConvertible {
    public var description: String { "Last-Event-ID must be an event id this gateway sent (a number)" }
}
