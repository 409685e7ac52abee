import Hummingbird
import LocusCore
import NIOCore

/// Writes the history, a resuming client's backlog and the live stream to one event-stream
/// client, in pieces of at most `pieceBytes`. Each write waits while the connection is
/// unwritable (more than NIO's 64 KiB waiting for the socket), so a client that reads slowly
/// holds at most about that and one piece in flight; history pieces are slices of the shared
/// history (no copy), and large pieces keep the number of writes, which cost more than the
/// bytes, low.
enum EventStreamResponse {
    static let pieceBytes = 64 * 1024

    /// Writes `buffer` in pieces (slices: no copy).
    static func write(_ buffer: ByteBuffer, to writer: inout any ResponseBodyWriter) async throws {
        var rest = buffer
        while rest.readableBytes > 0 {
            try await writer.write(rest.readSlice(length: min(pieceBytes, rest.readableBytes))!)
        }
    }

    /// The history a client asked for: slices of the shared chunks.
    static func writeHistory(_ history: HistorySnapshot, topics: [String]?, to writer: inout any ResponseBodyWriter) async throws {
        for piece in history.pieces(matching: topics, maxBytes: pieceBytes) {
            try await writer.write(piece)
        }
    }

    /// The live stream: batches from the client's outbox, until the outbox ends (the client
    /// was cut off, or the gateway is stopping). Each event is written as its shared frame
    /// (`FeedItem.frame`), all of a batch in one write: no copy per client, so what waits in
    /// NIO for a client that does not read is references to buffers every client shares (it
    /// was a copy of each batch in a buffer of 32 KiB, the allocator's rounding of 17 KiB: about
    /// a megabyte a client after a few hundred events). Events written are counted as `sent`.
    static func writeLive(_ outbox: ClientOutbox, counters: SourceCounters<WebCounters>,
                          to writer: inout any ResponseBodyWriter) async throws {
        while let batch = await outbox.next() {
            var buffers: [ByteBuffer] = []
            buffers.reserveCapacity(batch.count)
            var events = 0
            for delivery in batch {
                switch delivery {
                case .event(let item):
                    buffers.append(item.frame)
                    events += 1
                case .keepalive: buffers.append(keepalive)
                case .reply: break
                }
            }
            try await writer.write(contentsOf: buffers)
            outbox.written()
            if events > 0 { counters.update { $0.sent += events } }
        }
    }

    /// The keep-alive comment, one buffer for every client.
    static let keepalive = ByteBuffer(string: ": keepalive\n\n")
}
