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

    /// The live stream: batches from the client's outbox, each copied into one buffer, until
    /// the outbox ends (the client was cut off, or the gateway is stopping). Events written
    /// are counted as `sent`.
    static func writeLive(_ outbox: ClientOutbox, counters: SourceCounters<WebCounters>,
                          to writer: inout any ResponseBodyWriter) async throws {
        while let batch = await outbox.next() {
            var buffer = ByteBuffer()
            buffer.reserveCapacity(ClientOutbox.batchBytes + 1024)
            var events = 0
            for delivery in batch {
                switch delivery {
                case .event(let item):
                    item.writeSSEFrame(into: &buffer)
                    events += 1
                case .keepalive: buffer.writeString(": keepalive\n\n")
                case .reply: break
                }
            }
            try await write(buffer, to: &writer)
            outbox.written()
            if events > 0 { counters.update { $0.sent += events } }
        }
    }
}
