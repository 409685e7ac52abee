import CNATS
import Foundation
import LocusCore

extension NATSConnection {
    /// One message for `publishPipelined`.
    public struct OutgoingMessage: Sendable {
        public var subject: String
        public var payload: [UInt8]
        /// `Nats-Msg-Id`: a repeat within the stream's duplicate window is stored once.
        public var messageId: String?

        public init(subject: String, payload: [UInt8], messageId: String? = nil) {
            self.subject = subject
            self.payload = payload
            self.messageId = messageId
        }
    }

    /// Publishes `messages` to a stream all at once and then collects the stream's
    /// acknowledgements (each message's reply goes to an inbox of this call): one round trip for
    /// the lot instead of one each. Returns the acknowledgements of the leading messages, in
    /// order, up to the first that failed or was not answered within `timeoutMs`; the caller
    /// sends the rest again (with message ids, those the stream did store come back as
    /// duplicates). Throws only when nothing could be sent.
    public func publishPipelined(_ messages: [OutgoingMessage], timeoutMs: Int64 = 5000) throws -> [PublishAck] {
        guard !messages.isEmpty else { return [] }
        let prefix = "_INBOX.locus.\(UInt64.random(in: 0...UInt64.max))"
        var subscription: OpaquePointer?
        try check(natsConnection_SubscribeSync(&subscription, connection, prefix + ".*"), "subscribe to the acknowledgements")
        defer {
            natsSubscription_Unsubscribe(subscription)
            natsSubscription_Destroy(subscription)
        }
        var sent = 0
        for (i, m) in messages.enumerated() {
            var msg: OpaquePointer?
            let status = m.payload.withUnsafeBytes { bytes in
                natsMsg_Create(&msg, m.subject, "\(prefix).\(i)", bytes.baseAddress?.assumingMemoryBound(to: CChar.self), Int32(bytes.count))
            }
            guard status == NATS_OK, let msg else { break }
            defer { natsMsg_Destroy(msg) }
            if let id = m.messageId, natsMsgHeader_Set(msg, "Nats-Msg-Id", id) != NATS_OK { break }
            guard natsConnection_PublishMsg(connection, msg) == NATS_OK else { break }
            sent += 1
        }
        if sent == 0 { try check(NATS_CONNECTION_CLOSED, "publish to \(messages[0].subject)") }
        _ = natsConnection_FlushTimeout(connection, timeoutMs)
        var acks = [PublishAck?](repeating: nil, count: sent)
        var answered = 0
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(max(1, timeoutMs)) * 1_000_000
        while answered < sent {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now < deadline else { break }
            var reply: OpaquePointer?
            guard natsSubscription_NextMsg(&reply, subscription, Int64((deadline - now) / 1_000_000) + 1) == NATS_OK, let reply else { break }
            defer { natsMsg_Destroy(reply) }
            guard let subject = natsMsg_GetSubject(reply).map({ String(cString: $0) }),
                  let dot = subject.lastIndex(of: "."), let i = Int(subject[subject.index(after: dot)...]), i >= 0, i < sent,
                  acks[i] == nil else { continue }
            answered += 1
            let length = Int(natsMsg_GetDataLength(reply))
            guard length > 0, let data = natsMsg_GetData(reply) else { continue }  // no responders: not stored
            let body = Array(UnsafeBufferPointer(start: UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: length))
            guard let ack = try? JSONValue.decode(body), ack["error"] == nil, let seq = ack["seq"]?.doubleValue else { continue }
            var duplicate = false
            if case .bool(true)? = ack["duplicate"] { duplicate = true }
            acks[i] = PublishAck(sequence: UInt64(seq), duplicate: duplicate)
        }
        var leading: [PublishAck] = []
        for ack in acks {
            guard let ack else { break }
            leading.append(ack)
        }
        return leading
    }
}
