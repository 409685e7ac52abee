import CZeroMQ
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A fixed set of two-frame messages held in `zmq_msg_t`s, for the hub: receive a batch,
/// validate the whole batch, send the whole batch. Working in batches keeps the validator's
/// code and branch history warm instead of interleaving it with libzmq's for every message.
/// Frames move without copying. Owned by one thread.
final class MessageBatch {
    let capacity: Int
    /// `capacity` pairs: topic at 2k, body at 2k+1.
    private let frames: UnsafeMutablePointer<zmq_msg_t>
    /// Receives frames beyond the second of an oversized message.
    private let spare: UnsafeMutablePointer<zmq_msg_t>
    /// Messages currently held.
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = capacity
        frames = .allocate(capacity: capacity * 2)
        for k in 0..<(capacity * 2) { zmq_msg_init(frames + k) }
        spare = .allocate(capacity: 1)
        zmq_msg_init(spare)
    }

    deinit {
        for k in 0..<(capacity * 2) { zmq_msg_close(frames + k) }
        frames.deallocate()
        zmq_msg_close(spare)
        spare.deallocate()
    }

    enum Received { case message, wrongFrameCount(Int), nothing }

    /// Receives one message into the next free slot without waiting. A message that is not
    /// exactly two frames is consumed and reported but not kept.
    func receive(from socket: UnsafeMutableRawPointer) throws -> Received {
        let topic = frames + 2 * count
        if zmq_msg_recv(topic, socket, ZMQ_DONTWAIT) < 0 {
            let e = zmq_errno()
            if e == EAGAIN || e == EINTR { return .nothing }
            throw ZMQError(code: e, operation: "receive")
        }
        guard zmq_msg_more(topic) != 0 else {
            release(topic)
            return .wrongFrameCount(1)
        }
        // libzmq delivers a message's frames together, so the rest are already here.
        let body = topic + 1
        try receiveRest(into: body, socket)
        guard zmq_msg_more(body) != 0 else {
            count += 1
            return .message
        }
        var frameCount = 2
        repeat {
            try receiveRest(into: spare, socket)
            frameCount += 1
        } while zmq_msg_more(spare) != 0
        release(topic)
        release(body)
        release(spare)
        return .wrongFrameCount(frameCount)
    }

    @inline(__always)
    private func receiveRest(into message: UnsafeMutablePointer<zmq_msg_t>, _ socket: UnsafeMutableRawPointer) throws {
        while zmq_msg_recv(message, socket, 0) < 0 {
            let e = zmq_errno()
            if e != EINTR && e != EAGAIN { throw ZMQError(code: e, operation: "receive") }
        }
    }

    /// Calls `body` with message `k`'s topic and body bytes.
    @inline(__always)
    func withMessage<R>(_ k: Int, _ body: (UnsafeRawBufferPointer, UnsafeRawBufferPointer) -> R) -> R {
        let t = frames + 2 * k
        return body(Self.bytes(t), Self.bytes(t + 1))
    }

    @inline(__always)
    private static func bytes(_ m: UnsafeMutablePointer<zmq_msg_t>) -> UnsafeRawBufferPointer {
        let n = zmq_msg_size(m)
        return n == 0 ? UnsafeRawBufferPointer(start: nil, count: 0) : UnsafeRawBufferPointer(start: zmq_msg_data(m), count: n)
    }

    /// The file descriptor of the ipc or tcp connection message `k` came from; -1 for inproc.
    @inline(__always)
    func sourceFD(_ k: Int) -> Int32 { zmq_msg_get(frames + 2 * k, ZMQ_SRCFD) }

    /// The ZAP user id (CURVE client key name) of message `k`'s connection, if it has one.
    func userID(_ k: Int) -> String? {
        guard let p = zmq_msg_gets(frames + 2 * k, "User-Id") else { return nil }
        let s = String(cString: p)
        return s.isEmpty ? nil : s
    }

    /// Sends message `k` (both frames, zero-copy) on `socket`. XPUB sockets never block.
    @inline(__always)
    func send(_ k: Int, to socket: UnsafeMutableRawPointer) throws {
        let t = frames + 2 * k
        try sendFrame(t, socket, ZMQ_SNDMORE)
        try sendFrame(t + 1, socket, 0)
    }

    @inline(__always)
    private func sendFrame(_ m: UnsafeMutablePointer<zmq_msg_t>, _ socket: UnsafeMutableRawPointer, _ flags: Int32) throws {
        while zmq_msg_send(m, socket, flags | ZMQ_DONTWAIT) < 0 {
            let e = zmq_errno()
            if e == EINTR { continue }
            // Only an XPUB_NODROP socket at its high-water mark says EAGAIN; the hub's never does.
            if e == EAGAIN { return }
            throw ZMQError(code: e, operation: "send")
        }
    }

    /// Replaces message `k`'s body with `bytes` (copied).
    func replaceBody(_ k: Int, with bytes: [UInt8]) {
        let body = frames + 2 * k + 1
        zmq_msg_close(body)
        zmq_msg_init_size(body, bytes.count)
        if !bytes.isEmpty { bytes.withUnsafeBytes { _ = memcpy(zmq_msg_data(body), $0.baseAddress!, bytes.count) } }
    }

    /// Frees message `k`'s buffers now (a refused message could be large), leaving it empty.
    func discard(_ k: Int) {
        release(frames + 2 * k)
        release(frames + 2 * k + 1)
    }

    @inline(__always)
    private func release(_ m: UnsafeMutablePointer<zmq_msg_t>) {
        zmq_msg_close(m)
        zmq_msg_init(m)
    }

    /// Empties the batch. Sent and discarded messages hold no buffers any more.
    func reset() { count = 0 }
}
