import LocusFormats
import NIOCore

/// One connected gpsd client: what it asked for and what waits to be written to it.
/// Used on the server's event loop only (`GpsdServerState`).
final class GpsdClient {
    let channel: Channel
    /// The peer's IP address (max_clients_per_address); "" when the channel has none.
    let address: String
    var parser: GpsdRequestParser
    var watch = GpsdReportWriter.Watch()
    /// Bytes handed to the channel and not yet written to the socket.
    var pendingBytes = 0
    /// TPV/SKY/DEVICE reports among them.
    var pendingReports = 0
    /// When the last write completed, or when bytes started waiting: the write timeout's start.
    var lastWriteProgress: NIODeadline
    /// When the client last completed a request (or connected): the idle timeout's start.
    var lastRequest: NIODeadline
    /// When the unfinished request that waits in the parser began to arrive.
    var partialSince: NIODeadline?
    /// Set when the server decided to close it: nothing more is written.
    var closing = false
    /// What it has left unread at its end (sampled by the sweep and on admission).
    var backlog = GpsdPeerBacklog()
    /// When it connected: the oldest unproven watcher is the last to be evicted for a newcomer.
    let connectedAt: NIODeadline

    init(channel: Channel, address: String, maxRequestBytes: Int, now: NIODeadline) {
        self.channel = channel
        self.address = address
        parser = GpsdRequestParser(maxRequestBytes: maxRequestBytes)
        lastWriteProgress = now
        lastRequest = now
        connectedAt = now
    }

    /// Since when the client has accepted no byte while bytes wait for it; nil while it keeps up.
    var stalledSince: NIODeadline? { pendingBytes > 0 ? lastWriteProgress : nil }

    /// Its last sign of life: the later of its last request and the last bytes it accepted.
    var lastActive: NIODeadline { max(lastRequest, lastWriteProgress) }

    /// Whether a JSON report of `device` goes to this client.
    func watches(_ device: String) -> Bool {
        watch.enable && watch.json && (watch.device == nil || watch.device == device)
    }

    /// Whether `device`'s NMEA sentences go to this client (`nmea`, or `raw`: NMEA is text, so
    /// raw 1 and 2 pass the same bytes, as gpsd does for an NMEA device).
    func watchesSentences(of device: String) -> Bool {
        watch.enable && (watch.nmea || watch.raw > 0) && (watch.device == nil || watch.device == device)
    }
}

/// The channel handler of one client connection: hands what it reads to the server state.
final class GpsdClientHandler: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer

    let state: GpsdServerState
    private var client: GpsdClient?

    init(state: GpsdServerState) {
        self.state = state
    }

    func channelActive(context: ChannelHandlerContext) {
        client = state.connected(context.channel)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        var buffer = unwrapInboundIn(data)
        guard let client, let bytes = buffer.readBytes(length: buffer.readableBytes) else { return }
        state.received(bytes, from: client)
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let client { state.disconnected(client) }
        client = nil
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: Error) {
        // A reset or a failed write: the connection is over.
        context.close(promise: nil)
    }
}
