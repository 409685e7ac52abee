import LocusCore
import NIOCore

/// Guards how a client sends its requests, in front of the HTTP decoder (which would otherwise
/// wait forever for a head sent a byte a second, and keep a huge one in memory):
///
/// - a request's head (request line and headers, up to the empty line) longer than
///   `max_header_bytes` is answered 431 and its connection closed (`heads_too_large`);
/// - a head that has not arrived whole `header_timeout` after its first byte is answered 408
///   and its connection closed (`header_timeouts`);
/// - a connection with no request in progress (just connected, or between keep-alive
///   requests) is closed after `idle_timeout` (`idle_closed`).
///
/// It counts bytes itself until the head's empty line; from then on the request is in
/// progress and it only listens: the HTTP side tells it when a head was decoded and when a
/// response ended (`RequestLifecycleEvent`, sent by `RequestLifecycleObserver`), and once no
/// request is in progress the idle clock runs. A WebSocket upgrade never ends its response
/// here, so an upgraded connection is left alone (its writes are still watched by
/// `WriteStallTimeout`). Bytes that come while a request is in progress (pipelined requests)
/// are not counted; the HTTP decoder's own limit, set to `max_header_bytes`, covers them.
/// Runs on the channel's event loop.
final class RequestHeadGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = Any

    enum State: Equatable {
        /// No request in progress since `since`.
        case idle(since: NIODeadline)
        /// A head is arriving: first byte at `started`, `bytes` so far, and the length of its
        /// current line without CRs (0 at the start of a line: a LF then ends the head).
        case head(started: NIODeadline, bytes: Int, line: Int)
        /// A head came whole; its response has not ended.
        case request
        /// Refused: `LingeringRefusal` has the connection.
        case refused
    }

    private(set) var state: State = .refused
    private var inProgress = 0
    private var timer: Scheduled<Void>?
    private let limits: ConnectionLimits
    private let counters: SourceCounters<WebCounters>

    init(limits: ConnectionLimits, counters: SourceCounters<WebCounters>) {
        self.limits = limits
        self.counters = counters
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        timer?.cancel()
        timer = nil
        state = .refused
        context.fireChannelInactive()
    }

    private var started = false

    private func start(context: ChannelHandlerContext) {
        guard !started else { return }
        started = true
        becomeIdle(context: context)
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        switch state {
        case .request, .refused:
            context.fireChannelRead(data)
        case .idle, .head:
            switch scan(buffer, now: context.eventLoop.now) {
            case .incomplete(let next):
                let wasIdle = !isHead(state)
                state = next
                // The header clock starts at a head's first byte.
                if wasIdle, case .head(let startedAt, _, _) = next { arm(context: context, at: startedAt + limits.headerTimeout) }
                context.fireChannelRead(data)
            case .complete:
                state = .request
                cancelTimer()
                context.fireChannelRead(data)
            case .tooLarge:
                counters.update { $0.headsTooLarge += 1 }
                refuse(context: context, LingeringRefusal.response(
                    "431 Request Header Fields Too Large", "the request's head is over \(limits.maxHeaderBytes) bytes (max_header_bytes)"))
            }
        }
    }

    private func isHead(_ s: State) -> Bool {
        if case .head = s { return true }
        return false
    }

    /// What `scan` found in one read.
    enum ScanResult: Equatable {
        /// The head goes on (or has not started: the state stays idle).
        case incomplete(State)
        /// The head's empty line came, within the limit.
        case complete
        case tooLarge
    }

    /// Follows the head through `buffer` from the current state: empty lines before a request
    /// line are skipped (RFC 9112 2.2), a line ends at LF with or without CR, and the head ends
    /// at its first empty line.
    func scan(_ buffer: ByteBuffer, now: NIODeadline) -> ScanResult {
        var current = state
        let limit = limits.maxHeaderBytes
        return buffer.withUnsafeReadableBytes { bytes -> ScanResult in
            for byte in bytes {
                switch current {
                case .idle:
                    if byte == 0x0D || byte == 0x0A { continue }
                    current = .head(started: now, bytes: 1, line: 1)
                case .head(let startedAt, let n, let line):
                    if n + 1 > limit { return .tooLarge }
                    if byte == 0x0A {
                        if line == 0 { return .complete }
                        current = .head(started: startedAt, bytes: n + 1, line: 0)
                    } else {
                        current = .head(started: startedAt, bytes: n + 1, line: byte == 0x0D ? line : line + 1)
                    }
                case .request, .refused:
                    return .complete
                }
            }
            return .incomplete(current)
        }
    }

    /// From `RequestLifecycleObserver`, on the HTTP side of the pipeline.
    func triggerUserOutboundEvent(context: ChannelHandlerContext, event: Any, promise: EventLoopPromise<Void>?) {
        guard let lifecycle = event as? RequestLifecycleEvent else {
            context.triggerUserOutboundEvent(event, promise: promise)
            return
        }
        switch lifecycle {
        case .headDecoded:
            inProgress += 1
            if state != .refused {
                state = .request
                cancelTimer()
            }
        case .responseEnded:
            inProgress = max(0, inProgress - 1)
            if inProgress == 0, state == .request { becomeIdle(context: context) }
        }
        promise?.succeed(())
    }

    private func becomeIdle(context: ChannelHandlerContext) {
        let now = context.eventLoop.now
        state = .idle(since: now)
        arm(context: context, at: now + limits.idleTimeout)
    }

    private func refuse(context: ChannelHandlerContext, _ response: ByteBuffer) {
        state = .refused
        cancelTimer()
        do {
            try context.pipeline.syncOperations.addHandler(LingeringRefusal(response: response, linger: limits.linger), position: .first)
        } catch {
            context.close(promise: nil)
        }
    }

    private func cancelTimer() {
        timer?.cancel()
        timer = nil
    }

    private func arm(context: ChannelHandlerContext, at deadline: NIODeadline) {
        cancelTimer()
        timer = context.eventLoop.assumeIsolated().scheduleTask(deadline: deadline) { [self] in
            timer = nil
            let now = context.eventLoop.now
            switch state {
            case .idle(let since):
                if now >= since + limits.idleTimeout {
                    counters.update { $0.idleClosed += 1 }
                    state = .refused
                    context.close(promise: nil)
                } else {
                    arm(context: context, at: since + limits.idleTimeout)
                }
            case .head(let startedAt, _, _):
                if now >= startedAt + limits.headerTimeout {
                    counters.update { $0.headerTimeouts += 1 }
                    refuse(context: context, LingeringRefusal.response(
                        "408 Request Timeout", "the request's head did not arrive within the header timeout"))
                } else {
                    arm(context: context, at: startedAt + limits.headerTimeout)
                }
            case .request, .refused:
                break
            }
        }
    }
}
