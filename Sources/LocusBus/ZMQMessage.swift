import CZeroMQ
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One frame held in a libzmq `zmq_msg_t`, for moving frames between sockets without copying:
/// receive into it, look at the bytes in place, send it on (which hands the buffer to the
/// next socket and leaves this message empty). Reuse one `ZMQMessage` for many frames; each
/// receive releases what it held before.
///
/// Not copyable, because two owners of one `zmq_msg_t` would close it twice. The `zmq_msg_t` lives
/// on the heap at a fixed address, as libzmq expects. Like sockets, use it on one thread.
public struct ZMQMessage: ~Copyable {
    let pointer: UnsafeMutablePointer<zmq_msg_t>

    /// An empty message.
    public init() {
        pointer = .allocate(capacity: 1)
        zmq_msg_init(pointer)
    }

    /// A message holding a copy of `bytes`.
    public init(copying bytes: UnsafeRawBufferPointer) {
        pointer = .allocate(capacity: 1)
        zmq_msg_init_size(pointer, bytes.count)
        if bytes.count > 0 { zmq_msg_data(pointer)!.copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
    }

    public init(copying bytes: [UInt8]) {
        pointer = .allocate(capacity: 1)
        zmq_msg_init_size(pointer, bytes.count)
        if bytes.count > 0 {
            let data = zmq_msg_data(pointer)!
            bytes.withUnsafeBytes { data.copyMemory(from: $0.baseAddress!, byteCount: $0.count) }
        }
    }

    deinit {
        zmq_msg_close(pointer)
        pointer.deallocate()
    }

    /// Receives the next frame into this message. Returns false if nothing is queued (with
    /// `dontWait`), the receive timeout expired, or a signal interrupted the wait.
    public mutating func receive(from socket: ZMQSocket, dontWait: Bool) throws -> Bool {
        let h = try socket.liveHandle("receive")
        if zmq_msg_recv(pointer, h, dontWait ? ZMQ_DONTWAIT : 0) >= 0 { return true }
        let e = zmq_errno()
        if e == EAGAIN || e == EINTR { return false }
        throw ZMQError(code: e, operation: "receive")
    }

    /// Sends this frame (`more`: another frame of the same message follows). On success the
    /// content moves to the socket and this message is empty; on EAGAIN (returns false) it is kept.
    public mutating func send(to socket: ZMQSocket, more: Bool, dontWait: Bool) throws -> Bool {
        let h = try socket.liveHandle("send")
        let flags = (more ? ZMQ_SNDMORE : 0) | (dontWait ? ZMQ_DONTWAIT : 0)
        while true {
            if zmq_msg_send(pointer, h, flags) >= 0 { return true }
            let e = zmq_errno()
            if e == EINTR { continue }
            if e == EAGAIN { return false }
            throw ZMQError(code: e, operation: "send")
        }
    }

    /// Frame size in bytes.
    public var count: Int { zmq_msg_size(pointer) }

    /// True if the frame last received is followed by another frame of the same message.
    public var hasMore: Bool { zmq_msg_more(pointer) != 0 }

    /// Calls `body` with the frame's bytes in place (valid only during the call).
    public func withUnsafeBytes<R>(_ body: (UnsafeRawBufferPointer) throws -> R) rethrows -> R {
        let n = zmq_msg_size(pointer)
        guard n > 0, let data = zmq_msg_data(pointer) else { return try body(UnsafeRawBufferPointer(start: nil, count: 0)) }
        return try body(UnsafeRawBufferPointer(start: data, count: n))
    }

    /// A copy of the frame's bytes.
    public var bytes: [UInt8] { withUnsafeBytes { Array($0) } }
}
