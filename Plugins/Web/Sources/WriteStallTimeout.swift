import LocusCore
import NIOCore

/// Closes a connection whose client takes (almost) no bytes for `write_timeout` while some
/// wait for it (counted as `write_timeouts`).
///
/// It follows the channel's writability rather than each write: NIO marks a channel
/// unwritable when more than its high-water mark (64 KiB) waits for the socket and writable
/// again below the low-water mark (32 KiB), and every writer of the gateway waits while it is
/// unwritable. A connection unwritable for the whole timeout has a client that did not take
/// the 32 KiB needed to go below the mark in that time: it is stalled, and holds a piece of
/// memory and a connection slot for nothing. (A stalled client with less than that waiting
/// costs no more than those bytes; `idle_timeout` and keep-alives do not concern it.) Costs
/// nothing per write. Runs on the channel's event loop.
final class WriteStallTimeout: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let timeout: TimeAmount
    private let counters: SourceCounters<WebCounters>
    private var timer: Scheduled<Void>?

    init(timeout: TimeAmount, counters: SourceCounters<WebCounters>) {
        self.timeout = timeout
        self.counters = counters
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable {
            cancel()
        } else if timer == nil {
            timer = context.eventLoop.assumeIsolated().scheduleTask(in: timeout) { [self] in
                timer = nil
                guard context.channel.isActive, !context.channel.isWritable else { return }
                counters.update { $0.writeTimeouts += 1 }
                context.close(promise: nil)
            }
        }
        context.fireChannelWritabilityChanged()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancel()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancel()
    }

    private func cancel() {
        timer?.cancel()
        timer = nil
    }
}
