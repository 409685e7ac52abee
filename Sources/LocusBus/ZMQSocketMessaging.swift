import CZeroMQ
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Sending and receiving copies of frames. All of these must run on the socket's owning thread.
/// The hub's hot path uses `ZMQMessage` instead, which moves frames without copying.
extension ZMQSocket {
    /// Sends one frame (copied). Returns false if the frame could not be queued without
    /// blocking (EAGAIN: `dontWait`, a send timeout, or the XPUB no-drop high-water mark).
    /// Retries by itself when a signal interrupts the call.
    @discardableResult
    public func sendFrame(_ bytes: UnsafeRawBufferPointer, more: Bool, dontWait: Bool = false) throws -> Bool {
        let h = try liveHandle("send")
        let flags = (more ? ZMQ_SNDMORE : 0) | (dontWait ? ZMQ_DONTWAIT : 0)
        while true {
            if zmq_send(h, bytes.baseAddress, bytes.count, flags) >= 0 { return true }
            let e = zmq_errno()
            if e == EINTR { continue }
            if e == EAGAIN { return false }
            throw ZMQError(code: e, operation: "send")
        }
    }

    /// Sends a multipart message. Returns false (nothing sent) if the first frame would block;
    /// libzmq delivers the frames of a message all or none, so once the first frame is queued
    /// the rest are sent even if that means waiting.
    @discardableResult
    public func send(_ frames: [[UInt8]], dontWait: Bool = false) throws -> Bool {
        guard !frames.isEmpty else { return true }
        for (i, frame) in frames.enumerated() {
            let more = i < frames.count - 1
            var sent = try frame.withUnsafeBytes { try sendFrame($0, more: more, dontWait: dontWait) }
            if !sent && i == 0 { return false }
            while !sent {
                // Later frames of a started message cannot be withdrawn: keep trying.
                sent = try frame.withUnsafeBytes { try sendFrame($0, more: more, dontWait: false) }
            }
        }
        return true
    }

    /// Sends a bus message, topic frame then body frame, without building a frame array.
    @discardableResult
    public func send(topic: String, body: [UInt8], dontWait: Bool = false) throws -> Bool {
        var topic = topic
        let first = try topic.withUTF8 { try sendFrame(UnsafeRawBufferPointer($0), more: true, dontWait: dontWait) }
        guard first else { return false }
        // The message is started and cannot be withdrawn: wait for room for the body if need be.
        while !(try body.withUnsafeBytes({ try sendFrame($0, more: false, dontWait: false) })) {}
        return true
    }

    /// Waits up to `timeoutMilliseconds` for a whole message (0 = just look, -1 = forever).
    /// Returns nil on timeout or when a signal interrupted the wait; the caller loops and checks
    /// its stop flag. Throws `ZMQError` (e.g. `isContextTerminated`) on failure.
    public func receiveMultipart(timeoutMilliseconds: Int) throws -> [[UInt8]]? {
        guard try waitReadable(timeoutMilliseconds: timeoutMilliseconds) else { return nil }
        return try receiveMultipart(dontWait: true)
    }

    /// Receives a whole message. With `dontWait` returns nil at once if none is queued; without,
    /// blocks (up to the receive timeout, if one is set — nil when it expires).
    public func receiveMultipart(dontWait: Bool = false) throws -> [[UInt8]]? {
        let h = try liveHandle("receive")
        var frames: [[UInt8]] = []
        while true {
            // Frames of one message arrive together, so only the first may have to wait.
            let flags: Int32 = frames.isEmpty && dontWait ? ZMQ_DONTWAIT : 0
            if zmq_msg_recv(scratch, h, flags) < 0 {
                let e = zmq_errno()
                if frames.isEmpty && (e == EAGAIN || e == EINTR) { return nil }
                if e == EINTR { continue }
                throw ZMQError(code: e, operation: "receive")
            }
            let size = zmq_msg_size(scratch)
            if size == 0 {
                frames.append([])
            } else {
                let data = zmq_msg_data(scratch)!.assumingMemoryBound(to: UInt8.self)
                frames.append(Array(UnsafeBufferPointer(start: data, count: size)))
            }
            if zmq_msg_more(scratch) == 0 { return frames }
        }
    }

    /// Waits until a message can be received, up to `timeoutMilliseconds`. False on timeout or signal.
    public func waitReadable(timeoutMilliseconds: Int) throws -> Bool {
        let h = try liveHandle("poll")
        var item = zmq_pollitem_t(socket: h, fd: 0, events: Int16(ZMQ_POLLIN), revents: 0)
        let rc = zmq_poll(&item, 1, timeoutMilliseconds)
        if rc < 0 {
            let e = zmq_errno()
            if e == EINTR { return false }
            throw ZMQError(code: e, operation: "poll")
        }
        return rc > 0 && (item.revents & Int16(ZMQ_POLLIN)) != 0
    }
}
