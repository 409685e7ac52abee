import CZeroMQ
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Waits on several sockets of the calling thread at once (`zmq_poll`), for readability.
///
/// The sockets must belong to the thread that polls and stay open while the poller is used.
public struct ZMQPoller {
    private var items: [zmq_pollitem_t]

    /// Polls `sockets` for incoming messages; results are reported by index into this array.
    public init(_ sockets: [ZMQSocket]) throws {
        precondition(sockets.count <= 64, "ZMQPoller handles at most 64 sockets")
        items = try sockets.map { zmq_pollitem_t(socket: try $0.liveHandle("poll"), fd: 0, events: Int16(ZMQ_POLLIN), revents: 0) }
    }

    /// Waits up to `timeoutMilliseconds` (0 = just look, -1 = forever; Locus loops use ≤ 100)
    /// for any socket to become readable. An interrupted wait returns an empty result.
    /// Throws `ZMQError` — `isContextTerminated` when the context is shut down.
    public mutating func poll(timeoutMilliseconds: Int) throws -> ZMQPollResult {
        let n = items.count
        let rc = items.withUnsafeMutableBufferPointer { zmq_poll($0.baseAddress, Int32(n), timeoutMilliseconds) }
        if rc < 0 {
            let e = zmq_errno()
            if e == EINTR { return ZMQPollResult(mask: 0) }
            throw ZMQError(code: e, operation: "poll")
        }
        var mask: UInt64 = 0
        if rc > 0 {
            for i in 0..<n where items[i].revents & Int16(ZMQ_POLLIN) != 0 { mask |= 1 << UInt64(i) }
        }
        return ZMQPollResult(mask: mask)
    }
}

/// Which sockets a `ZMQPoller.poll` found readable.
public struct ZMQPollResult: Sendable, Equatable {
    let mask: UInt64

    public func isReadable(_ index: Int) -> Bool { mask & (1 << UInt64(index)) != 0 }
    public var isEmpty: Bool { mask == 0 }
    /// Indices of the readable sockets.
    public var readable: [Int] { (0..<64).filter(isReadable) }
}
