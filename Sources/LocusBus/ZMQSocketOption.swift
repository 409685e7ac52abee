import CZeroMQ

/// Socket options Locus sets. Set them on the owning thread, before `bind`/`connect` where
/// libzmq requires it (high-water marks, max message size).
public enum ZMQSocketOption: Sendable, Equatable {
    /// How long `close()` keeps unsent messages: -1 forever, 0 discard at once.
    case linger(milliseconds: Int)
    /// Outgoing queue limit in messages per peer; 0 = unlimited.
    case sendHighWaterMark(Int)
    /// Incoming queue limit in messages per peer; 0 = unlimited.
    case receiveHighWaterMark(Int)
    /// Largest inbound message accepted over ipc/tcp, in bytes (-1 = no limit). libzmq drops the
    /// whole connection of a peer that sends a larger one (it cannot skip a message mid-stream).
    case maxMessageSize(Int)
    /// The kernel's receive buffer (`SO_RCVBUF`) of each ipc/tcp connection, in bytes; -1 =
    /// the system's default (autotuned, up to megabytes).
    case receiveBufferBytes(Int)
    /// Blocking receives fail with EAGAIN after this long; -1 = wait forever.
    case receiveTimeout(milliseconds: Int)
    case sendTimeout(milliseconds: Int)
    /// XPUB: pass every subscription message up to the application, duplicates included.
    case xpubVerbose(Bool)
    /// XPUB: return EAGAIN at the high-water mark instead of dropping silently.
    case xpubNoDrop(Bool)
    /// Queue messages only to completed connections.
    case immediate(Bool)
    /// XPUB: subscriptions take effect only when the application passes them on with
    /// `subscribe`/`unsubscribe` (which apply to the connection of the last one received).
    case xpubManual(Bool)

    var code: Int32 {
        switch self {
        case .linger: return ZMQ_LINGER
        case .sendHighWaterMark: return ZMQ_SNDHWM
        case .receiveHighWaterMark: return ZMQ_RCVHWM
        case .maxMessageSize: return ZMQ_MAXMSGSIZE
        case .receiveBufferBytes: return ZMQ_RCVBUF
        case .receiveTimeout: return ZMQ_RCVTIMEO
        case .sendTimeout: return ZMQ_SNDTIMEO
        case .xpubVerbose: return ZMQ_XPUB_VERBOSE
        case .xpubNoDrop: return ZMQ_XPUB_NODROP
        case .immediate: return ZMQ_IMMEDIATE
        case .xpubManual: return ZMQ_XPUB_MANUAL
        }
    }

    var name: String {
        switch self {
        case .linger: return "linger"
        case .sendHighWaterMark: return "send high-water mark"
        case .receiveHighWaterMark: return "receive high-water mark"
        case .maxMessageSize: return "max message size"
        case .receiveBufferBytes: return "receive buffer"
        case .receiveTimeout: return "receive timeout"
        case .sendTimeout: return "send timeout"
        case .xpubVerbose: return "XPUB verbose"
        case .xpubNoDrop: return "XPUB no-drop"
        case .immediate: return "immediate"
        case .xpubManual: return "XPUB manual"
        }
    }
}

extension ZMQSocket {
    /// Sets one option. Call on the owning thread.
    public func setOption(_ option: ZMQSocketOption) throws {
        let h = try liveHandle("set \(option.name)")
        let rc: Int32
        switch option {
        case .maxMessageSize(let v):
            var value = Int64(v)
            rc = zmq_setsockopt(h, option.code, &value, MemoryLayout<Int64>.size)
        case .linger(let v), .sendHighWaterMark(let v), .receiveHighWaterMark(let v), .receiveBufferBytes(let v),
             .receiveTimeout(let v), .sendTimeout(let v):
            var value = Int32(clamping: v)
            rc = zmq_setsockopt(h, option.code, &value, MemoryLayout<Int32>.size)
        case .xpubVerbose(let on), .xpubNoDrop(let on), .immediate(let on), .xpubManual(let on):
            var value: Int32 = on ? 1 : 0
            rc = zmq_setsockopt(h, option.code, &value, MemoryLayout<Int32>.size)
        }
        guard rc == 0 else { throw ZMQError.last("set \(option.name)") }
    }

    /// SUB/XSUB: receive messages whose first frame starts with `prefix` (empty = everything).
    public func subscribe(_ prefix: [UInt8]) throws {
        try setBytes(ZMQ_SUBSCRIBE, prefix, "subscribe")
    }

    public func subscribe(_ prefix: String) throws { try subscribe(Array(prefix.utf8)) }

    /// SUB/XSUB: undoes one `subscribe` of the same prefix.
    public func unsubscribe(_ prefix: [UInt8]) throws {
        try setBytes(ZMQ_UNSUBSCRIBE, prefix, "unsubscribe")
    }

    public func unsubscribe(_ prefix: String) throws { try unsubscribe(Array(prefix.utf8)) }

    private func setBytes(_ code: Int32, _ bytes: [UInt8], _ what: String) throws {
        let h = try liveHandle(what)
        let rc = bytes.withUnsafeBytes { zmq_setsockopt(h, code, $0.baseAddress, $0.count) }
        guard rc == 0 else { throw ZMQError.last(what) }
    }

    /// The endpoint of the last bind or connect, with wildcards resolved (`tcp://0.0.0.0:41234`).
    public var lastEndpoint: String {
        get throws {
            let h = try liveHandle("read the last endpoint")
            var buffer = [CChar](repeating: 0, count: 1024)
            var size = buffer.count
            guard zmq_getsockopt(h, ZMQ_LAST_ENDPOINT, &buffer, &size) == 0 else {
                throw ZMQError.last("read the last endpoint")
            }
            return String(cString: buffer)
        }
    }

    /// True while the frame last received is followed by more frames of the same message.
    public var hasMoreFrames: Bool {
        get throws {
            let h = try liveHandle("read RCVMORE")
            var more: Int32 = 0
            var size = MemoryLayout<Int32>.size
            guard zmq_getsockopt(h, ZMQ_RCVMORE, &more, &size) == 0 else { throw ZMQError.last("read RCVMORE") }
            return more != 0
        }
    }
}
