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
    /// Damaged records met in closed segments (their segment's rest is skipped).
    public var damaged: Int
}

/// Reads a journal directory while the hub may be appending to it (docs/protocol.md 13.1).
/// Records are CRC-checked; a half-written record at the end of the newest segment is taken as
/// the end for now, a damaged one in a closed segment is counted and that segment's rest
/// skipped. One reader per thread.
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

    private func readSegment(first: UInt64, from startOffset: Int, wanted: UInt64, isLast: Bool,
                             visit: (JournalEntry) -> Bool) -> (stop: SegmentStop, damaged: Int) {
        let path = JournalSegments.path(directory, first: first)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return (.endOfSegment(nextIndex: wanted, offset: startOffset), 0) }
        defer { close(fd) }
        var fileOffset = startOffset   // file offset of chunk[0]
        var used = 0                   // bytes of chunk holding file data
        var consumed = 0               // bytes of chunk already parsed
        var nextIndex = wanted
        if chunk.count < Self.firstChunk { chunk = [UInt8](repeating: 0, count: Self.firstChunk) }
        while true {
            // Parse what is buffered.
            var needMore = false
            var damagedHere = false
            var stoppedAt: (UInt64, Int)?
            chunk.withUnsafeBytes { raw in
                while consumed < used {
                    switch JournalRecord.parse(UnsafeRawBufferPointer(rebasing: raw[consumed..<used])) {
                    case .incomplete:
                        needMore = true
                        return
                    case .damaged:
                        damagedHere = true
                        return
                    case .record(let entry, let size):
                        if entry.index >= nextIndex {
                            if !visit(entry) {
                                stoppedAt = (entry.index, fileOffset + consumed)
                                return
                            }
                            nextIndex = entry.index + 1
                        }
                        consumed += size
                    }
                }
                needMore = true
            }
            if let (index, at) = stoppedAt { return (.visitorStopped(index: index, offset: at), 0) }
            if damagedHere {
                // In the newest segment this may be a record being written right now.
                return (.endOfSegment(nextIndex: nextIndex, offset: fileOffset + consumed), isLast ? 0 : 1)
            }
            guard needMore else { continue }
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
            if n <= 0 { return (.endOfSegment(nextIndex: nextIndex, offset: fileOffset), 0) }
            used += n
            // A full read: more is waiting, so read larger pieces.
            if n == free, chunk.count < Self.bulkChunk {
                chunk.append(contentsOf: [UInt8](repeating: 0, count: chunk.count))
            }
        }
    }
}
