import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where to continue reading a journal: the index of the next record wanted and, when known,
/// where it lies (a hint; if its segment is gone the reader looks the index up again).
public struct JournalPosition: Sendable, Equatable {
    /// The next record wanted; 0 = the oldest retained.
    public var index: UInt64
    public var segment: UInt64?
    public var offset: Int?

    public init(index: UInt64, segment: UInt64? = nil, offset: Int? = nil) {
        self.index = index
        self.segment = segment
        self.offset = offset
    }

    public static let oldest = JournalPosition(index: 0)
}

/// What one `JournalReader.read` found.
public struct JournalReadOutcome: Sendable, Equatable {
    /// Where the next read continues: just after the last record handed out and accepted.
    public var next: JournalPosition
    /// True if it stopped at the end of what has been written.
    public var reachedEnd: Bool
    /// True if records at or after the requested index were already deleted (retention).
    public var truncated: Bool
    /// Records at or after the requested index that were lost to damage: the reader resumes at
    /// the next intact record, and the gap in indices says how many records lay between.
    public var damaged: Int
}

/// Reads a journal directory while the hub may be appending to it (docs/protocol.md 13.1).
/// Records are CRC-checked. After a damaged record the reader resynchronises: it looks for the
/// next offset that holds an intact record (a CRC-32C over a plausible header) with a later
/// index, serves every intact record from there, and counts the records lost by the gap in
/// indices (to the next segment's first index if none follows in the segment). A damaged record
/// with nothing intact after it in the newest segment may be one being written right now: that is
/// the end for now, counted only once a later record shows it was damage. One reader per thread.
public final class JournalReader {
    public let directory: String
    /// The read buffer. It starts small, because most readers follow the journal's end (the
    /// catch-up server's snapshot, the web sink) and live for the daemon's life, and doubles up to
    /// `bulkChunk` while reads keep filling it (a catch-up through a long backlog), or beyond while a
    /// single record does not fit.
    private var chunk: [UInt8] = []
    static let firstChunk = 64 << 10
    static let bulkChunk = 1 << 20

    /// The read buffer's size now (tests).
    var bufferSize: Int { chunk.count }

    public init(directory: String) { self.directory = directory }

    /// The position of the first segment that may hold records appended at or after `ms`
    /// (segments whose last write is older are skipped whole).
    public func position(since ms: Int64) -> JournalPosition {
        let segments = JournalSegments.list(directory)
        for (k, first) in segments.enumerated() {
            let path = JournalSegments.path(directory, first: first)
            let mtime = ((try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date)
                .map { Int64($0.timeIntervalSince1970 * 1000) } ?? Int64.max
            if mtime >= ms || k == segments.count - 1 {
                return JournalPosition(index: first, segment: first, offset: JournalRecord.segmentMagic.count)
            }
        }
        return .oldest
    }

    /// Where the first record appended at or after `ms` is (or will be): a reader that starts
    /// with this run of the daemon skips the records of earlier runs.
    public func firstPosition(appendedSince ms: Int64) -> JournalPosition {
        read(from: position(since: ms)) { $0.appendedMs < ms }.next
    }

    /// Hands each intact record from `start` on to `visit`, in index order, until `visit`
    /// returns false (that record is not consumed: the outcome's `next` points at it) or the
    /// end of what has been written.
    public func read(from start: JournalPosition, visit: (JournalEntry) -> Bool) -> JournalReadOutcome {
        let segments = JournalSegments.list(directory)
        var outcome = JournalReadOutcome(next: start, reachedEnd: true, truncated: false, damaged: 0)
        guard !segments.isEmpty else { return outcome }
        if start.index > 0, start.index < segments[0] { outcome.truncated = true }
        var k: Int
        var offset = JournalRecord.segmentMagic.count
        if let s = start.segment, let o = start.offset, let at = segments.firstIndex(of: s) {
            k = at
            offset = o
        } else {
            k = max(0, (segments.lastIndex { $0 <= start.index }) ?? 0)
        }
        var wanted = max(start.index, 0)
        while k < segments.count {
            let first = segments[k]
            let isLast = k == segments.count - 1
            let result = readSegment(first: first, from: offset, wanted: wanted, isLast: isLast, visit: visit)
            outcome.damaged += result.damaged
            // Damage with nothing intact after it in a closed segment: the next segment's first
            // index says how many records were lost.
            if let lostFrom = result.lostFrom, !isLast {
                let from = max(lostFrom, wanted)
                if segments[k + 1] > from { outcome.damaged += Int(segments[k + 1] - from) }
            }
            switch result.stop {
            case .visitorStopped(let index, let at):
                outcome.next = JournalPosition(index: index, segment: first, offset: at)
                outcome.reachedEnd = false
                return outcome
            case .endOfSegment(let nextIndex, let at):
                wanted = max(wanted, nextIndex)
                if isLast {
                    outcome.next = JournalPosition(index: wanted, segment: first, offset: at)
                    return outcome
                }
            }
            k += 1
            offset = JournalRecord.segmentMagic.count
        }
        outcome.next = JournalPosition(index: wanted)
        return outcome
    }

    private enum SegmentStop {
        case visitorStopped(index: UInt64, offset: Int)
        case endOfSegment(nextIndex: UInt64, offset: Int)
    }

    /// Reads one segment. `damaged` counts records lost before an intact one that follows them;
    /// `lostFrom` is the first index lost to damage that nothing intact in this segment follows.
    private func readSegment(first: UInt64, from startOffset: Int, wanted: UInt64, isLast: Bool,
                             visit: (JournalEntry) -> Bool) -> (stop: SegmentStop, damaged: Int, lostFrom: UInt64?) {
        let path = JournalSegments.path(directory, first: first)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return (.endOfSegment(nextIndex: wanted, offset: startOffset), 0, nil) }
        defer { close(fd) }
        var fileOffset = startOffset   // file offset of chunk[0]
        var used = 0                   // bytes of chunk holding file data
        var consumed = 0               // bytes of chunk already parsed
        var nextIndex = wanted
        // The index the next record in the file should have: a hint offset points at `wanted`.
        var expected = startOffset == JournalRecord.segmentMagic.count ? first : wanted
        var damaged = 0
        // Set while looking for the next intact record after damage: where the damage began
        // (file offset) and the first index it may have taken.
        var resync: (offset: Int, index: UInt64)?
        // In the newest segment, a record that ran past the end of the file may have been
        // being written: when intact bytes turn up after it, it is parsed once more from its
        // start (`rewind`) before it is called damage. `rewound` keeps that to once per offset.
        var unfinished: Int?
        var rewind: Int?
        var rewound: Int?
        var status = stat()
        var fileSize = fstat(fd, &status) == 0 ? Int(status.st_size) : 0
        if chunk.count < Self.firstChunk { chunk = [UInt8](repeating: 0, count: Self.firstChunk) }
        while true {
            // Parse what is buffered.
            var stoppedAt: (UInt64, Int)?
            chunk.withUnsafeBytes { raw in
                while consumed < used {
                    let here = UnsafeRawBufferPointer(rebasing: raw[consumed..<used])
                    if let r = resync {
                        // Only a header that could be the next record is CRC-checked, so the
                        // scan costs a few comparisons per byte.
                        guard here.count >= JournalRecord.headerBytes else { return }
                        let length = Int(JournalRecord.get32(here, 0))
                        let index = JournalRecord.get64(here, 8)
                        guard length >= JournalRecord.minLength, length <= JournalRecord.maxLength,
                              fileOffset + consumed + 8 + length <= fileSize,
                              index >= r.index, index - r.index <= UInt64(fileSize - r.offset) else {
                            consumed += 1
                            continue
                        }
                        switch JournalRecord.parse(here) {
                        case .incomplete: return
                        case .damaged: consumed += 1; continue
                        case .record(let entry, _):
                            if isLast, let start = unfinished, start == r.offset, rewound != start {
                                rewind = start
                                return
                            }
                            let from = max(r.index, wanted)
                            if entry.index > from { damaged += Int(entry.index - from) }
                            resync = nil
                        }
                    }
                    switch JournalRecord.parse(here) {
                    case .incomplete:
                        // A length that runs past the end of the file is damage too (a flipped
                        // length byte), unless the record is still being written: the resync
                        // tells the two apart.
                        guard here.count >= 8, fileOffset + consumed + 8 + Int(JournalRecord.get32(here, 0)) > fileSize else { return }
                        resync = (fileOffset + consumed, expected)
                        unfinished = fileOffset + consumed
                        consumed += 1
                    case .damaged:
                        resync = (fileOffset + consumed, expected)
                        unfinished = nil
                        consumed += 1
                    case .record(let entry, let size):
                        if entry.index >= nextIndex {
                            if !visit(entry) {
                                stoppedAt = (entry.index, fileOffset + consumed)
                                return
                            }
                            nextIndex = entry.index + 1
                        }
                        expected = entry.index + 1
                        consumed += size
                    }
                }
            }
            if let (index, at) = stoppedAt { return (.visitorStopped(index: index, offset: at), damaged, nil) }
            if let start = rewind {
                // Parse the record again from its start, with what has been written since.
                fileOffset = start
                used = 0
                consumed = 0
                resync = nil
                rewind = nil
                rewound = start
                continue
            }
            // Keep the unparsed rest, then read more after it.
            if consumed > 0 {
                let rest = used - consumed
                if rest > 0 { chunk.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: $0.baseAddress! + consumed, byteCount: rest) } }
                fileOffset += consumed
                used = rest
                consumed = 0
            }
            if used == chunk.count { chunk.append(contentsOf: [UInt8](repeating: 0, count: chunk.count)) }
            let free = chunk.count - used
            let n = chunk.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + used, free, off_t(fileOffset + used)) }
            if n <= 0 {
                guard let r = resync else { return (.endOfSegment(nextIndex: nextIndex, offset: fileOffset), damaged, nil) }
                // Nothing intact after the damage. In the newest segment it may be a record
                // being written right now: stop before it, and look again next time.
                if isLast { return (.endOfSegment(nextIndex: nextIndex, offset: r.offset), damaged, nil) }
                return (.endOfSegment(nextIndex: nextIndex, offset: fileOffset + used), damaged, r.index)
            }
            used += n
            fileSize = max(fileSize, fileOffset + used)
            // A full read: more is waiting, so read larger pieces.
            if n == free, chunk.count < Self.bulkChunk {
                chunk.append(contentsOf: [UInt8](repeating: 0, count: chunk.count))
            }
        }
    }
}
