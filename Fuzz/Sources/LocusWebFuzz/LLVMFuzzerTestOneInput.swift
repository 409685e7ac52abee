import Foundation
import LocusCore
import LocusWebRequests

/// libFuzzer's per-input callback: the input as what a browser or script sends the web
/// gateway besides HTTP itself — a request target with its query (`/events?topics=…&token=…`),
/// a WebSocket request (`{"subscribe":[…]}`) and a Last-Event-ID. Invariants: topics taken are
/// valid prefixes; a WebSocket request's answer is JSON, and the subscription it leaves has at
/// most `WebSocketRequest.maxTopics` valid prefixes; an accepted event id reads back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    guard let data else { return 0 }
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)

    let target = QueryItems.split(target: text)
    let query = QueryItems.parse(target.query)
    let (topics, bad) = QueryItems.topics(query["topics"])
    if let topics {
        precondition(bad == nil && topics.allSatisfy { Topic.isValidPrefix($0) }, "invariant broken: an invalid topic prefix was taken")
    }

    var subscription = ["region."]
    let reply = WebSocketRequest.apply(text, to: &subscription)
    guard case .object(let o)? = try? JSONValue.read(reply.json) else { preconditionFailure("invariant broken: the answer is not a JSON object") }
    precondition((o["error"] != nil) == reply.bad, "invariant broken: an error answer not counted as bad, or the reverse")
    precondition(subscription.count <= WebSocketRequest.maxTopics, "invariant broken: more topics than allowed")
    precondition(subscription.allSatisfy { $0.isEmpty || Topic.isValidPrefix($0) }, "invariant broken: an invalid prefix subscribed")

    if case .success(let id?) = LastEventID.parse(text) {
        precondition(String(id) == text, "invariant broken: the event id does not read back")
    }
    return 0
}
