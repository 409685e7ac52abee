import NIOCore
import NIOHTTPTypes

/// What the HTTP side of a connection tells `RequestHeadGuard`, which sits in front of the
/// HTTP decoder and cannot see requests and responses itself. Sent as outbound user events,
/// which travel from the observer towards the head of the pipeline, where the guard is.
enum RequestLifecycleEvent: Sendable {
    /// A request's head was decoded.
    case headDecoded
    /// A response's end was written.
    case responseEnded
}

/// Added behind Hummingbird's HTTP codec (its `additionalChannelHandlers`): reports each
/// decoded request head and each response end to `RequestHeadGuard`. Runs on the channel's
/// event loop.
final class RequestLifecycleObserver: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPRequestPart
    typealias InboundOut = HTTPRequestPart
    typealias OutboundIn = HTTPResponsePart
    typealias OutboundOut = HTTPResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        if case .head = unwrapInboundIn(data) {
            context.triggerUserOutboundEvent(RequestLifecycleEvent.headDecoded, promise: nil)
        }
        context.fireChannelRead(data)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        let isEnd: Bool
        if case .end = unwrapOutboundIn(data) { isEnd = true } else { isEnd = false }
        context.write(data, promise: promise)
        if isEnd { context.triggerUserOutboundEvent(RequestLifecycleEvent.responseEnded, promise: nil) }
    }
}
