import Glibc
import CNATS

/// An ephemeral pull consumer on one stream, for the subjects of one filter, starting after a
/// given stream sequence: what a server reads a partition of fixes with. Messages need no
/// acknowledgement (the reader's position is what it checkpoints), so a consumer deleted by a
/// takeover loses nothing. It belongs to its connection's thread.
public final class JetStreamPullConsumer {
    private let subscription: OpaquePointer
    public let filter: String

    /// Where a consumer starts in its stream.
    public enum Start: Sendable, Equatable {
        /// The oldest message the stream holds.
        case all
        /// Only messages stored from now on.
        case new
        /// The message after this sequence (the last one already handled).
        case after(UInt64)
    }

    public convenience init(connection: NATSConnection, stream: String, filter: String, after: UInt64, inactiveSeconds: Double = 30) throws {
        try self.init(connection: connection, stream: stream, filter: filter, start: after == 0 ? .all : .after(after),
                      inactiveSeconds: inactiveSeconds)
    }

    /// `createTimeoutMs`: how long to wait for the server to make the consumer (nats-server 2.9
    /// may place it on a node that is down, and never answer: ask again).
    public init(connection: NATSConnection, stream: String, filter: String, start: Start, inactiveSeconds: Double = 30,
                createTimeoutMs: Int64? = nil) throws {
        self.filter = filter
        var options = jsSubOptions()
        jsSubOptions_Init(&options)
        var subscription: OpaquePointer?
        var code = jsErrCode(0)
        let streamName = strdup(stream), filterCopy = strdup(filter)
        defer { free(streamName); free(filterCopy) }
        options.Stream = UnsafePointer(streamName)
        options.Config.FilterSubject = UnsafePointer(filterCopy)
        options.Config.AckPolicy = js_AckNone
        switch start {
        case .all: options.Config.DeliverPolicy = js_DeliverAll
        case .new: options.Config.DeliverPolicy = js_DeliverNew
        case .after(let sequence):
            options.Config.DeliverPolicy = js_DeliverByStartSequence
            options.Config.OptStartSeq = sequence + 1
        }
        // A consumer whose reader died (kill -9) goes away by itself after this long.
        options.Config.InactiveThreshold = Int64(inactiveSeconds * 1e9)
        var requestOptions = jsOptions()
        jsOptions_Init(&requestOptions)
        requestOptions.Wait = createTimeoutMs ?? connection.settings.timeoutMs
        try check(js_PullSubscribe(&subscription, connection.jetStream, filter, nil, &requestOptions, &options, &code),
                  "read \(filter) from stream \(stream)", code: code)
        guard let subscription else { throw NATSError(operation: "read \(filter)", message: "no subscription") }
        self.subscription = subscription
    }

    deinit {
        natsSubscription_Unsubscribe(subscription)
        natsSubscription_Destroy(subscription)
    }

    /// Up to `batch` messages, waiting at most `timeoutMs` for the first; none when nothing came.
    public func fetch(batch: Int, timeoutMs: Int64) throws -> [JetStreamMessage] {
        var list = natsMsgList()
        var code = jsErrCode(0)
        let status = natsSubscription_Fetch(&list, subscription, Int32(batch), timeoutMs, &code)
        if status == NATS_TIMEOUT { return [] }
        try check(status, "fetch from \(filter)", code: code)
        return messages(&list)
    }

    /// Up to `batch` messages the consumer holds now, without waiting for more (a reader of many
    /// partitions asks each in turn).
    public func fetchAvailable(batch: Int, timeoutMs: Int64 = 5) throws -> [JetStreamMessage] {
        var request = jsFetchRequest()
        jsFetchRequest_Init(&request)
        request.Batch = Int32(batch)
        request.NoWait = true
        request.Expires = timeoutMs * 1_000_000
        var list = natsMsgList()
        let status = natsSubscription_FetchRequest(&list, subscription, &request)
        if status == NATS_TIMEOUT || status == NATS_NOT_FOUND { return [] }
        try check(status, "fetch from \(filter)")
        return messages(&list)
    }

    /// Messages the consumer has not delivered yet (its lag); nil when the consumer is gone (its
    /// only copy was on a server that died, or it was idle past its inactive threshold). A
    /// reader must ask now and then: a fetch from a consumer that is gone only times out.
    ///
    /// `timeoutMs`: how long to wait for the answer. nats-server 2.9 does not answer for a
    /// consumer whose only copy was on a node that is down; a timeout counts as gone too.
    public func pending(timeoutMs: Int64 = 500) throws -> UInt64? {
        var info: UnsafeMutablePointer<jsConsumerInfo>?
        var code = jsErrCode(0)
        var options = jsOptions()
        jsOptions_Init(&options)
        options.Wait = timeoutMs
        let status = natsSubscription_GetConsumerInfo(&info, subscription, &options, &code)
        if status == NATS_NOT_FOUND || status == NATS_TIMEOUT || code == JSConsumerNotFoundErr { return nil }
        try check(status, "read the state of the consumer of \(filter)", code: code)
        defer { jsConsumerInfo_Destroy(info) }
        return info?.pointee.NumPending ?? 0
    }

    private func messages(_ list: inout natsMsgList) -> [JetStreamMessage] {
        defer { natsMsgList_Destroy(&list) }
        var messages: [JetStreamMessage] = []
        messages.reserveCapacity(Int(list.Count))
        for i in 0..<Int(list.Count) {
            guard let message = list.Msgs[i] else { continue }
            var meta: UnsafeMutablePointer<jsMsgMetaData>?
            guard natsMsg_GetMetaData(&meta, message) == NATS_OK, let meta else { continue }
            defer { jsMsgMetaData_Destroy(meta) }
            let length = Int(natsMsg_GetDataLength(message))
            let payload: [UInt8] = natsMsg_GetData(message).map { data in
                data.withMemoryRebound(to: UInt8.self, capacity: length) { Array(UnsafeBufferPointer(start: $0, count: length)) }
            } ?? []
            messages.append(JetStreamMessage(subject: natsMsg_GetSubject(message).map { String(cString: $0) } ?? "",
                                             payload: payload, sequence: meta.pointee.Sequence.Stream,
                                             timestampNs: meta.pointee.Timestamp, pending: meta.pointee.NumPending))
        }
        return messages
    }
}
