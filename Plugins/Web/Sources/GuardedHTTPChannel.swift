import HummingbirdCore
import LocusCore
import Logging
import NIOCore

/// Hummingbird's HTTP/1 (with WebSocket upgrade) child channel with the gateway's connection
/// guards in front of its HTTP decoder: `AddressLimitHandler` (connections per address),
/// `WriteStallTimeout` (clients that accept no bytes) and `RequestHeadGuard` (head size,
/// header and idle timeouts). Hummingbird adds handlers only behind its decoder
/// (`additionalChannelHandlers`), which never sees the raw bytes of a head; this wraps the
/// child channel's setup to put these first. Hummingbird's per-connection logs go through
/// `ConnectionLogHandler` (a client's failures are not the daemon's errors).
struct GuardedHTTPChannel<Base: ServerChildChannel>: ServerChildChannel {
    typealias Value = Base.Value

    let base: Base
    let limits: ConnectionLimits
    let addresses: AddressConnectionTable
    let counters: SourceCounters<WebCounters>

    /// SO_SNDBUF of each connection. Linux otherwise grows a loopback socket's send buffer to
    /// megabytes: 500 clients opening the history at once and never reading made the event
    /// loops copy about 2 MB into each (a gigabyte in all) while `/state` waited half a second.
    /// With this, a client that does not read holds 128 KiB of kernel memory (the kernel
    /// doubles the value) and the rest waits in its bounded outbox.
    static var sendBufferBytes: Int { 64 * 1024 }

    /// NIO's write buffer of each connection: every writer of the gateway waits while more
    /// than `high` bytes wait there (NIO's default is 64 KiB). Each event waiting is a
    /// reference to its shared frame plus NIO's and the chunked encoding's bookkeeping (about
    /// 150 bytes), so a client that does not read holds about 16 KiB / 300 B × 150 B here.
    static var writeBufferWaterMark: ChannelOptions.Types.WriteBufferWaterMark { .init(low: 8 * 1024, high: 16 * 1024) }

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.syncOptions?.setOption(ChannelOptions.socketOption(.so_sndbuf), value: Self.sendBufferBytes)
            try channel.syncOptions?.setOption(ChannelOptions.writeBufferWaterMark, value: Self.writeBufferWaterMark)
            try channel.pipeline.syncOperations.addHandlers([
                AddressLimitHandler(table: addresses, counters: counters, linger: limits.linger),
                WriteStallTimeout(timeout: limits.writeTimeout, counters: counters),
                RequestHeadGuard(limits: limits, counters: counters),
            ])
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return base.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await base.handle(value: value, logger: ConnectionLogHandler.lowering(logger))
    }
}
