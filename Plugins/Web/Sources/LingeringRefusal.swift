import NIOCore

/// Answers a connection the gateway refuses below HTTP (a head too large, too slow, too many
/// connections from one address) and closes it. Added first in the pipeline by the handler
/// that refuses, so it sees the client's bytes before the HTTP decoder and swallows them.
///
/// It writes `response` (a whole HTTP response, `Connection: close`), closes the connection
/// for writing, then reads and discards what the client still sends until the client closes
/// its side or `linger` passes. Why not close at once: with unread bytes in its receive
/// buffer the kernel answers a close with a reset, and a client still sending (an 8 MB head)
/// would lose the answer before reading it. Runs on the channel's event loop.
final class LingeringRefusal: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let response: ByteBuffer
    private let linger: TimeAmount
    private var sent = false
    private var closeTimer: Scheduled<Void>?

    init(response: ByteBuffer, linger: TimeAmount) {
        self.response = response
        self.linger = linger
    }

    /// `HTTP/1.1 <status>` with a one-line plain-text body, closing the connection.
    static func response(_ status: String, _ message: String) -> ByteBuffer {
        let body = message + "\n"
        return ByteBuffer(string: "HTTP/1.1 \(status)\r\nContent-Type: text/plain; charset=utf-8\r\n"
                          + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n" + body)
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { send(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        closeTimer?.cancel()
    }

    func channelActive(context: ChannelHandlerContext) {
        send(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        closeTimer?.cancel()
        closeTimer = nil
        context.fireChannelInactive()
    }

    /// Discarded: nothing behind this handler hears from the client again.
    func channelRead(context: ChannelHandlerContext, data: NIOAny) {}

    func channelReadComplete(context: ChannelHandlerContext) {}

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed = event as? ChannelEvent {
            context.close(promise: nil)   // the client has sent everything: nothing left to reset
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    private func send(context: ChannelHandlerContext) {
        guard !sent else { return }
        sent = true
        let loop = context.eventLoop.assumeIsolated()
        context.writeAndFlush(NIOAny(response), promise: nil)
        context.close(mode: .output).assumeIsolated().whenFailure { _ in
            // Half-closure unsupported or the socket already gone: close all of it.
            context.close(promise: nil)
        }
        closeTimer = loop.scheduleTask(in: linger) {
            context.close(promise: nil)
        }
    }

}
