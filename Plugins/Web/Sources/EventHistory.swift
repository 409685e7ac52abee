import NIOCore

/// A run of history events as Server-Sent Event frames, back to back, immutable once made:
/// every client that asks for the history is written slices of these same bytes.
final class HistoryChunk: Sendable {
    let bytes: ByteBuffer
    /// Where each frame ends in `bytes` (the first starts at 0).
    let ends: [Int]
    /// Each frame's topic (a client's `topics` choose among them).
    let topics: [String]

    init(bytes: ByteBuffer, ends: [Int], topics: [String]) {
        self.bytes = bytes
        self.ends = ends
        self.topics = topics
    }

    func start(of frame: Int) -> Int { frame == 0 ? 0 : ends[frame - 1] }
}

/// The recent events the gateway keeps for `?history=1` (its `history` setting), encoded once
/// as SSE frames in chunks of about `chunkBytes`. A client that asks gets a `HistorySnapshot`:
/// references to the chunks, not a copy, so 500 clients opening the history at once cost 500
/// small arrays of references, however long the history. Only the newest chunk is still
/// growing; a snapshot shares it as it is (copy on write: the next event copies at most
/// `chunkBytes`), and an event pushes the oldest one out of the history. Not thread-safe:
/// `EventFeed` keeps it under its lock.
struct EventHistory {
    static let chunkBytes = 16 * 1024

    let limit: Int
    private var sealed: [HistoryChunk] = []
    /// Frames at the start of the oldest chunk (the first sealed one, else the open one) that
    /// are no longer in the history.
    private var skip = 0
    /// Frames in the history.
    private(set) var count = 0
    private var open = ByteBuffer()
    private var openEnds: [Int] = []
    private var openTopics: [String] = []
    /// The open frames as a chunk, made by the last snapshot and good until the next event.
    private var openChunk: HistoryChunk?

    init(limit: Int) { self.limit = limit }

    mutating func append(_ item: FeedItem) {
        guard limit > 0 else { return }
        openChunk = nil
        item.writeSSEFrame(into: &open)
        openEnds.append(open.writerIndex)
        openTopics.append(item.topic)
        count += 1
        if open.writerIndex >= Self.chunkBytes { seal() }
        while count > limit {
            count -= 1
            skip += 1
            if let oldest = sealed.first, skip == oldest.ends.count {
                sealed.removeFirst()
                skip = 0
            }
        }
    }

    private mutating func seal() {
        sealed.append(openChunk ?? HistoryChunk(bytes: open, ends: openEnds, topics: openTopics))
        openChunk = nil
        open = ByteBuffer()
        open.reserveCapacity(Self.chunkBytes + 1024)
        openEnds = []
        openTopics = []
    }

    /// The history as it is now, oldest first.
    mutating func snapshot() -> HistorySnapshot {
        var chunks = sealed
        if !openEnds.isEmpty {
            let chunk = openChunk ?? HistoryChunk(bytes: open, ends: openEnds, topics: openTopics)
            openChunk = chunk
            chunks.append(chunk)
        }
        return HistorySnapshot(chunks: chunks, skip: skip, count: count)
    }
}

/// The history as one client got it when it subscribed: shared chunks, the frames before
/// `skip` in the first one excluded.
public struct HistorySnapshot: Sendable {
    let chunks: [HistoryChunk]
    let skip: Int
    /// Frames in it.
    public let count: Int

    /// The frames of `topics` (nil: all), oldest first, as buffers of at most `maxBytes`:
    /// slices of the shared chunks (no copy) where frames to send are contiguous, or runs
    /// of short ones gathered into one buffer (so a client of few topics is not written a
    /// piece per frame).
    public func pieces(matching topics: [String]?, maxBytes: Int) -> Pieces {
        Pieces(snapshot: self, topics: topics, maxBytes: maxBytes)
    }

    public struct Pieces: Sequence, IteratorProtocol {
        let snapshot: HistorySnapshot
        let topics: [String]?
        let maxBytes: Int
        private var chunk = 0
        private var frame: Int
        /// A long run of frames to send (a slice of a chunk), handed out `maxBytes` at a time.
        private var pending: ByteBuffer?
        /// Short runs copied together until `maxBytes`.
        private var gathered: ByteBuffer?

        init(snapshot: HistorySnapshot, topics: [String]?, maxBytes: Int) {
            self.snapshot = snapshot
            self.topics = topics
            self.maxBytes = Swift.max(1, maxBytes)
            frame = snapshot.skip
        }

        public mutating func next() -> ByteBuffer? {
            while true {
                // A long run waiting to be sliced.
                if var run = pending, run.readableBytes > 0 {
                    let piece = run.readSlice(length: Swift.min(maxBytes, run.readableBytes))!
                    pending = run.readableBytes > 0 ? run : nil
                    return piece
                }
                guard chunk < snapshot.chunks.count else {
                    defer { gathered = nil }
                    return gathered
                }
                let c = snapshot.chunks[chunk]
                guard frame < c.ends.count else {
                    chunk += 1
                    frame = 0
                    continue
                }
                // The next run of wanted frames in this chunk.
                while frame < c.ends.count, !FeedItem.topic(c.topics[frame], matches: topics) { frame += 1 }
                let first = frame
                while frame < c.ends.count, FeedItem.topic(c.topics[frame], matches: topics) { frame += 1 }
                guard frame > first else { continue }
                let start = c.start(of: first), end = c.ends[frame - 1]
                let run = c.bytes.getSlice(at: start, length: end - start)!
                if run.readableBytes >= maxBytes / 4 {
                    // Long enough to send as it is, after what was gathered before it.
                    pending = run
                    if let g = gathered {
                        gathered = nil
                        return g
                    }
                    continue
                }
                var g = gathered ?? {
                    var b = ByteBuffer()
                    b.reserveCapacity(maxBytes)
                    return b
                }()
                if g.readableBytes + run.readableBytes > maxBytes, g.readableBytes > 0 {
                    gathered = nil
                    var next = ByteBuffer()
                    next.reserveCapacity(maxBytes)
                    var r = run
                    next.writeBuffer(&r)
                    gathered = next
                    return g
                }
                var r = run
                g.writeBuffer(&r)
                gathered = g
            }
        }
    }
}
