import NIOCore

/// Closes an event-stream connection when its client closes its side (EOF). Installed first in
/// the pipeline once a Server-Sent Events stream starts: a client that closes cleanly (FIN,
/// not a reset) leaves the connection half-open, since Hummingbird allows half-closure so that
/// a client may send its request, close, and still read a short answer. An event stream never
/// ends by itself, so without this the stream would hold its client slot until its next
/// keep-alive write failed (up to two `keepalive` periods). Runs on the channel's event loop.
final class EventStreamEOF: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case .inputClosed = event as? ChannelEvent {
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    /// Adds it to `channel` (from any thread).
    static func install(on channel: any Channel) {
        channel.eventLoop.execute {
            try? channel.pipeline.syncOperations.addHandler(EventStreamEOF(), position: .first)
        }
    }
}
