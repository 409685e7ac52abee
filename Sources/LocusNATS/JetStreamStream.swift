import Glibc
import CNATS

/// A JetStream stream as Locus asks for it: where messages are kept, how long a message id is
/// remembered for de-duplication, and how many servers hold a copy.
public struct JetStreamStreamSpec: Sendable, Equatable {
    public var name: String
    public var subjects: [String]
    /// `true`: on disk (survives a server restart); `false`: in memory.
    public var fileStorage: Bool
    /// Copies on that many servers of the cluster (1, or 3 for a cluster that loses a node).
    public var replicas: Int
    /// How long the server remembers a `Nats-Msg-Id`, in seconds (NATS's default is 120).
    public var duplicateWindowSeconds: Double
    /// Oldest messages go past this age, in seconds (0: kept until other limits).
    public var maxAgeSeconds: Double

    public init(name: String, subjects: [String], fileStorage: Bool = true, replicas: Int = 1,
                duplicateWindowSeconds: Double = 120, maxAgeSeconds: Double = 0) {
        self.name = name
        self.subjects = subjects
        self.fileStorage = fileStorage
        self.replicas = replicas
        self.duplicateWindowSeconds = duplicateWindowSeconds
        self.maxAgeSeconds = maxAgeSeconds
    }
}

extension NATSConnection {
    /// Creates the stream, or leaves it as it is when it exists (its settings are the operator's then).
    public func ensureStream(_ spec: JetStreamStreamSpec) throws {
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(0)
        if js_GetStreamInfo(&info, jetStream, spec.name, nil, &code) == NATS_OK {
            jsStreamInfo_Destroy(info)
            return
        }
        var config = jsStreamConfig()
        jsStreamConfig_Init(&config)
        let subjects = spec.subjects.map { strdup($0) }
        defer { subjects.forEach { free($0) } }
        var pointers = subjects.map { UnsafePointer($0) }
        let name = strdup(spec.name)
        defer { free(name) }
        let status = pointers.withUnsafeMutableBufferPointer { list -> natsStatus in
            config.Name = UnsafePointer(name)
            config.Subjects = list.baseAddress
            config.SubjectsLen = Int32(list.count)
            config.Storage = spec.fileStorage ? js_FileStorage : js_MemoryStorage
            config.Replicas = Int64(spec.replicas)
            config.Duplicates = Int64(spec.duplicateWindowSeconds * 1e9)
            config.MaxAge = Int64(spec.maxAgeSeconds * 1e9)
            return js_AddStream(&info, jetStream, &config, nil, &code)
        }
        // Another server of the group may have created it in between: that is success too.
        if status == NATS_OK { jsStreamInfo_Destroy(info); return }
        if js_GetStreamInfo(&info, jetStream, spec.name, nil, &code) == NATS_OK { jsStreamInfo_Destroy(info); return }
        throw NATSError(operation: "create stream \(spec.name)", status: status, code: code)
    }

    /// The subjects of `stream` that hold a message and match `filter` (wildcards allowed). One
    /// request to the stream, no consumer: it works while a server of the cluster is down, when
    /// a consumer placed on it would never answer.
    public func subjects(of stream: String, matching filter: String) throws -> [String] {
        var options = jsOptions()
        jsOptions_Init(&options)
        options.Wait = settings.timeoutMs
        let filterCopy = strdup(filter)
        defer { free(filterCopy) }
        options.Stream.Info.SubjectsFilter = UnsafePointer(filterCopy)
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(0)
        try check(js_GetStreamInfo(&info, jetStream, stream, &options, &code), "list the subjects of \(stream)", code: code)
        defer { jsStreamInfo_Destroy(info) }
        guard let list = info?.pointee.State.Subjects?.pointee else { return [] }
        return (0..<Int(list.Count)).compactMap { list.List[$0].Subject.map { String(cString: $0) } }
    }

    /// The first and last sequences `stream` holds now (an empty stream: last 0, or first =
    /// last + 1 once its messages were removed). One request, no consumer; `timeoutMs` defaults
    /// to the connection's timeout.
    public func sequences(of stream: String, timeoutMs: Int64? = nil) throws -> (first: UInt64, last: UInt64) {
        var options = jsOptions()
        jsOptions_Init(&options)
        options.Wait = timeoutMs ?? settings.timeoutMs
        var info: UnsafeMutablePointer<jsStreamInfo>?
        var code = jsErrCode(0)
        try check(js_GetStreamInfo(&info, jetStream, stream, &options, &code), "read the state of \(stream)", code: code)
        defer { jsStreamInfo_Destroy(info) }
        guard let state = info?.pointee.State else { return (0, 0) }
        return (state.FirstSeq, state.LastSeq)
    }

    /// What the server said to a JetStream publish.
    public struct PublishAck: Sendable, Equatable {
        /// The message's sequence in the stream (the first copy's, for a duplicate).
        public var sequence: UInt64
        /// The server had a message with this id within the duplicate window and stored nothing.
        public var duplicate: Bool
    }

    /// Publishes `payload` to `subject` and waits for the stream's acknowledgement. `messageId`
    /// becomes `Nats-Msg-Id`: a second message with the same id within the stream's duplicate window
    /// is acknowledged as a duplicate and not stored.
    public func publish(_ subject: String, _ payload: [UInt8], messageId: String? = nil,
                        expectLastSubjectSequence: UInt64? = nil) throws -> PublishAck {
        var options = jsPubOptions()
        jsPubOptions_Init(&options)
        var ack: UnsafeMutablePointer<jsPubAck>?
        var code = jsErrCode(0)
        let id = messageId.flatMap { strdup($0) }
        defer { if let id { free(id) } }
        options.MsgId = id.map { UnsafePointer($0) }
        if let expected = expectLastSubjectSequence {
            if expected == 0 { options.ExpectNoMessage = true } else { options.ExpectLastSubjectSeq = expected }
        }
        let status = payload.withUnsafeBytes { bytes in
            js_Publish(&ack, jetStream, subject, bytes.baseAddress, Int32(bytes.count), &options, &code)
        }
        try check(status, "publish to \(subject)", code: code)
        defer { jsPubAck_Destroy(ack) }
        return PublishAck(sequence: ack?.pointee.Sequence ?? 0, duplicate: ack?.pointee.Duplicate ?? false)
    }
}
