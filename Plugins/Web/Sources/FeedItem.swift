import LocusCore
import NIOCore

/// One event as the gateway serves it: `{"topic":…,"id":…,"envelope":{…}}`, encoded once as a
/// Server-Sent Events frame and sent to every client that wants it. `id` is the journal index
/// when the event was journaled (a client resumes after it), nil for topics the journal does
/// not take.
///
/// A class, and its frame one `ByteBuffer`: every client's outbox holds a reference and every
/// client's connection is written the same buffer (NIO keeps a reference while the bytes wait
/// for the socket), so an event costs its bytes once however many clients wait for it, and a
/// client that does not read costs a reference per event, not a copy.
public final class FeedItem: Sendable {
    public let id: UInt64?
    public let topic: String
    /// `id: N\n` (when journaled), `data: `, the JSON object above on one line, and `\n\n`.
    public let frame: ByteBuffer
    /// Where the JSON object starts in `frame` (it ends 2 bytes before the end).
    private let jsonStart: Int

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
        let head = (id.map { "id: \($0)\n" } ?? "") + "data: "
        // Exactly its size: the allocator would round a reserve up to a power of two.
        var frame = ByteBufferAllocator().buffer(capacity: head.utf8.count + w.bytes.count + 2)
        frame.writeString(head)
        jsonStart = frame.writerIndex
        frame.writeBytes(w.bytes)
        frame.writeBytes([0x0A, 0x0A])
        self.frame = frame
    }

    /// The JSON object above, on one line (a copy: a WebSocket message, `/state`).
    public var json: [UInt8] { frame.getBytes(at: jsonStart, length: frame.readableBytes - jsonStart - 2) ?? [] }

    /// Bytes this event takes on the wire, as a Server-Sent Events frame (a WebSocket text
    /// message takes a little less): what a client's `client_buffer` counts.
    public var frameBytes: Int { frame.readableBytes }

    /// Appends the Server-Sent Events frame to `buffer` (the history's chunks).
    public func writeSSEFrame(into buffer: inout ByteBuffer) {
        buffer.writeImmutableBuffer(frame)
    }

    /// The Server-Sent Events frame: `id:` (when journaled) and one `data:` line.
    public var sseFrame: [UInt8] { Array(frame.readableBytesView) }

    /// True if one of `prefixes` starts the topic (nil: every topic).
    func matches(_ prefixes: [String]?) -> Bool { Self.topic(topic, matches: prefixes) }

    static func topic(_ topic: String, matches prefixes: [String]?) -> Bool {
        guard let prefixes else { return true }
        return prefixes.contains { topic.hasPrefix($0) }
    }
}
