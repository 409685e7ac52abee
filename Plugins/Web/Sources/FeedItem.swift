import LocusCore
import NIOCore

/// One event as the gateway serves it: `{"topic":…,"id":…,"envelope":{…}}`, encoded once and
/// sent to every client that wants it. `id` is the journal index when the event was journaled
/// (a client resumes after it), nil for topics the journal does not take.
public struct FeedItem: Sendable {
    public let id: UInt64?
    public let topic: String
    /// The JSON object above, on one line.
    public let json: [UInt8]

    public init(id: UInt64?, topic: String, body: [UInt8]) {
        self.id = id
        self.topic = topic
        var w = JSONWriter(capacity: body.count + topic.utf8.count + 40)
        w.beginObject()
        w.key("topic"); w.string(topic)
        if let id { w.key("id"); w.int(Int(clamping: id)) }
        w.key("envelope")
        // An outside publisher may send JSON with line breaks between tokens; they would end
        // an SSE data line. Outside strings they are whitespace, and inside strings JSON
        // forbids them raw, so a space is the same document.
        w.rawValue(body.map { $0 == 0x0A || $0 == 0x0D ? 0x20 : $0 })
        w.endObject()
        json = w.bytes
    }

    /// Bytes this event takes on the wire, as a Server-Sent Events frame or a WebSocket text
    /// message (at most a few bytes more than the latter): what a client's `client_buffer`
    /// counts.
    public var frameBytes: Int { json.count + (id == nil ? 8 : 33) }

    /// Appends the Server-Sent Events frame (as `sseFrame`) to `buffer`.
    public func writeSSEFrame(into buffer: inout ByteBuffer) {
        if let id { buffer.writeString("id: \(id)\n") }
        buffer.writeString("data: ")
        buffer.writeBytes(json)
        buffer.writeBytes([0x0A, 0x0A])
    }

    /// The Server-Sent Events frame: `id:` (when journaled) and one `data:` line.
    public var sseFrame: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(json.count + 32)
        if let id { out += Array("id: \(id)\n".utf8) }
        out += Array("data: ".utf8)
        out += json
        out += [0x0A, 0x0A]
        return out
    }

    /// True if one of `prefixes` starts the topic (nil: every topic).
    func matches(_ prefixes: [String]?) -> Bool { Self.topic(topic, matches: prefixes) }

    static func topic(_ topic: String, matches prefixes: [String]?) -> Bool {
        guard let prefixes else { return true }
        return prefixes.contains { topic.hasPrefix($0) }
    }
}
