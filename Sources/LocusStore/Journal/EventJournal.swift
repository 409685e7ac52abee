import Foundation
import LocusCore
#if canImport(Glibc)
import Glibc
#endif

/// The on-disk journal the hub appends to before forwarding (docs/protocol.md 13.1): segment
/// files of CRC-checked records in one directory, retention by size and age.
///
/// Written from one thread (the hub's); `statistics` from any. A `kill -9` loses nothing that
/// was committed: `commit` hands the bytes to the kernel with `write(2)` before the hub sends.
/// Opening cuts off a record a kill left half-written at the end of the newest segment.
public final class EventJournal: MessageJournal, @unchecked Sendable {
    public let directory: String
    public let settings: JournalSettings
    /// `settings.segmentBytes`, read with every record.
    private let segmentLimit: Int64
    private let matcher: JournalTopicMatcher
    private let now: @Sendable () -> Int64
    /// Keeps other processes out of the journal directory; guards no property.
    private let lock: StoreProcessLock

    private var fd: Int32 = -1
    private var segmentFirst: UInt64 = 1
    private var segmentSize: Int64 = 0
    private var segmentLastMs: Int64 = 0
    private var nextIndex: UInt64 = 1
    /// Closed segments, oldest first.
    private var closed: [(first: UInt64, bytes: Int64, lastMs: Int64)] = []
    private var buffer: [UInt8] = []
    private var buffered = 0
    private var lastMaintenance: Int64 = 0
    private var lastErrorText: String?
    /// While writes fail: when to try again and the wait after that. Until then commits count
    /// their messages as not written without touching the disk.
    private var retry: (atMs: Int64, backoffMs: Int64)?
    static let firstRetryMs: Int64 = 100
    static let longestRetryMs: Int64 = 5_000

    /// Guards `stats` and `lastErrorText`; the other `var`s are used only by the writing thread.
    private let statsLock = NSLock()
    private var stats = JournalStatistics()

    /// Opens (creating if needed, mode 0700) the journal in `directory`, taking its process lock.
    /// - Throws: `StateStoreError` (`.inUse` when another process has it open, `.cannotOpen`).
    public init(directory: String, settings: JournalSettings,
                now: @escaping @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }) throws {
        self.directory = directory
        self.settings = settings
        segmentLimit = Int64(settings.segmentBytes)
        self.matcher = JournalTopicMatcher(settings)
        self.now = now
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: 0o700])
        } catch {
            throw StateStoreError(.cannotOpen, path: directory, "cannot create the journal directory: \(error.localizedDescription)")
        }
        lock = try StoreProcessLock(storePath: directory + "/journal", advice:
            "Only one locus may use a journal: stop the other one, or give this one another hub.state_directory (or hub.journal: false).")
        try open()
    }

    deinit { close() }

    /// Takes the journal's process lock without opening the journal, for a daemon that runs
    /// without it (its state directory cannot be written): a second daemon on the same state
    /// directory is still refused. Returns what holds the lock (release it by dropping it), or
    /// nil when the lock file cannot be created there (a read-only file system).
    /// - Throws: `StateStoreError` `.inUse` when another process has the journal open.
    public static func holdLock(directory: String) throws -> AnyObject? {
        do {
            return try StoreProcessLock(storePath: directory + "/journal", advice:
                "Only one locus may use a journal: stop the other one, or give this one another hub.state_directory (or hub.journal: false).")
        } catch let error as StateStoreError where error.code == .cannotOpen {
            return nil
        }
    }

    /// The last write error, for a log line.
    public var lastError: String? { statsLock.withLock { lastErrorText } }

    public var statistics: JournalStatistics { statsLock.withLock { stats } }

    // MARK: MessageJournal

    public func takes(topic: UnsafeRawBufferPointer) -> Bool { matcher.takes(topic) }

    public func append(topic: UnsafeRawBufferPointer, body: UnsafeRawBufferPointer) {
        if buffered == 0 { segmentLastMs = now() }
        JournalRecord.append(index: nextIndex, appendedMs: segmentLastMs, topic: topic, body: body, to: &buffer)
        nextIndex += 1
        buffered += 1
    }

    @discardableResult
    public func commit() -> Bool {
        guard buffered > 0 else { return true }
        let count = buffered
        let first = nextIndex - UInt64(count)
        defer { buffer.removeAll(keepingCapacity: buffer.capacity <= 4 << 20); buffered = 0 }
        // Not written: those indices are given up (the next record gets the next one, so a
        // reader sees the hole as a gap rather than two records with one index).
        func notWritten(_ text: String) -> Bool {
            statsLock.withLock { stats.notWritten += UInt64(count); lastErrorText = text }
            return false
        }
        if let retry, now() < retry.atMs { return notWritten(lastError ?? "the journal cannot be written") }
        if fd < 0 {
            do {
                try openSegment(first: first)
            } catch {
                failed("\(error)")
                return notWritten("\(error)")
            }
        }
        guard writeAll(buffer) else {
            let text = String(cString: strerror(errno))
            // Take back whatever part of the batch reached the file, so the segment still ends
            // with whole records, and try the same segment again later: a full disk must not
            // leave a file per message behind.
            if ftruncate(fd, off_t(segmentSize)) != 0 || lseek(fd, off_t(segmentSize), SEEK_SET) < 0 {
                closeSegmentFile()
            }
            failed(text)
            return notWritten(text)
        }
        if retry != nil {
            retry = nil
            statsLock.withLock { stats.writeError = nil; stats.writeFailingSinceMs = nil }
        }
        segmentSize += Int64(buffer.count)
        statsLock.withLock {
            stats.appended += UInt64(count)
            stats.bytes += Int64(buffer.count)
            stats.newestIndex = nextIndex - 1
            if stats.oldestIndex == nil { stats.oldestIndex = first; stats.oldestAppendedMs = segmentLastMs }
        }
        if segmentSize >= segmentLimit { roll() }
        return true
    }

    /// A write or a segment's creation failed: wait before the next try, doubling the wait up
    /// to `longestRetryMs`, and say so in the statistics (the daemon reports it once).
    private func failed(_ text: String) {
        let t = now()
        let backoff = retry.map { min($0.backoffMs * 2, Self.longestRetryMs) } ?? Self.firstRetryMs
        retry = (t + backoff, backoff)
        statsLock.withLock {
            if stats.writeError == nil { stats.writeFailingSinceMs = t }
            stats.writeError = text
        }
    }

    public func maintain() {
        let t = now()
        guard t - lastMaintenance >= 1000 else { return }
        lastMaintenance = t
        applyRetention(now: t)
    }

    /// Closes the current segment file and releases the lock. Later appends are not written.
    public func close() {
        _ = commit()
        closeSegmentFile()
        lock.release()
    }

    // MARK: Opening and recovery

    private func open() throws {
        let firsts = JournalSegments.list(directory)
        var total: Int64 = 0
        for first in firsts.dropLast() {
            let path = JournalSegments.path(directory, first: first)
            let attributes = try? FileManager.default.attributesOfItem(atPath: path)
            let bytes = (attributes?[.size] as? NSNumber)?.int64Value ?? 0
            let mtime = (attributes?[.modificationDate] as? Date).map { Int64($0.timeIntervalSince1970 * 1000) } ?? now()
            closed.append((first, bytes, mtime))
            total += bytes
        }
        var recovered: Int64 = 0
        if let last = firsts.last {
            let (valid, lastIndex, lastMs, fileSize) = Self.checkTail(JournalSegments.path(directory, first: last))
            recovered = fileSize - valid
            segmentFirst = last
            nextIndex = lastIndex.map { $0 + 1 } ?? last
            segmentLastMs = lastMs ?? now()
            let path = JournalSegments.path(directory, first: last)
            fd = Glibc.open(path, O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else {
                throw StateStoreError(.cannotOpen, path: path, "cannot open the journal segment: \(String(cString: strerror(errno)))")
            }
            if valid < Int64(JournalRecord.segmentMagic.count) {
                // Created but its header never fully written: write it again.
                _ = ftruncate(fd, 0)
                _ = lseek(fd, 0, SEEK_SET)
                guard writeAll(JournalRecord.segmentMagic) else {
                    throw StateStoreError(.cannotOpen, path: path, "cannot write the journal segment: \(String(cString: strerror(errno)))")
                }
                segmentSize = Int64(JournalRecord.segmentMagic.count)
            } else {
                if recovered > 0 { _ = ftruncate(fd, off_t(valid)) }
                segmentSize = valid
                _ = lseek(fd, off_t(valid), SEEK_SET)
            }
            total += segmentSize
        }
        var s = JournalStatistics()
        s.bytes = total
        s.segments = closed.count + (fd >= 0 ? 1 : 0)
        s.recoveredBytes = recovered
        if nextIndex > (closed.first?.first ?? segmentFirst) {
            s.newestIndex = nextIndex - 1
            let oldestFirst = closed.first?.first ?? segmentFirst
            s.oldestIndex = oldestFirst
            s.oldestAppendedMs = Self.firstAppendedMs(JournalSegments.path(directory, first: oldestFirst))
        }
        stats = s
        if fd < 0 { try openSegment(first: nextIndex) }
    }

    /// How much of segment `path` is intact: the byte length of its header and whole records,
    /// the last record's index and time, and the file's size.
    static func checkTail(_ path: String) -> (valid: Int64, lastIndex: UInt64?, lastMs: Int64?, size: Int64) {
        guard let data = FileManager.default.contents(atPath: path) else { return (0, nil, nil, 0) }
        let magic = JournalRecord.segmentMagic
        guard data.count >= magic.count, Array(data.prefix(magic.count)) == magic else { return (0, nil, nil, Int64(data.count)) }
        return data.withUnsafeBytes { raw in
            var offset = magic.count
            var lastIndex: UInt64?
            var lastMs: Int64?
            while offset < raw.count {
                guard case .record(let entry, let size) = JournalRecord.parse(UnsafeRawBufferPointer(rebasing: raw[offset...])) else { break }
                lastIndex = entry.index
                lastMs = entry.appendedMs
                offset += size
            }
            return (Int64(offset), lastIndex, lastMs, Int64(raw.count))
        }
    }

    /// The append time of a segment's first record, nil if it has none.
    static func firstAppendedMs(_ path: String) -> Int64? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let head = try? handle.read(upToCount: 8 + JournalRecord.headerBytes), head.count == 8 + JournalRecord.headerBytes else { return nil }
        return head.withUnsafeBytes { Int64(bitPattern: JournalRecord.get64(UnsafeRawBufferPointer(rebasing: $0[8...]), 16)) }
    }

    // MARK: Segments

    private func openSegment(first: UInt64) throws {
        let path = JournalSegments.path(directory, first: first)
        let descriptor = Glibc.open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw StateStoreError(.cannotOpen, path: path, "cannot create a journal segment: \(String(cString: strerror(errno)))")
        }
        fd = descriptor
        segmentFirst = first
        segmentSize = 0
        guard writeAll(JournalRecord.segmentMagic) else {
            // Leave no file behind that holds no record (a full disk would otherwise gather
            // one per attempt).
            let text = String(cString: strerror(errno))
            Glibc.close(fd)
            fd = -1
            unlink(path)
            errno = 0
            throw StateStoreError(.cannotOpen, path: path, "cannot write a journal segment: \(text)")
        }
        segmentSize = Int64(JournalRecord.segmentMagic.count)
        statsLock.withLock { stats.bytes += segmentSize; stats.segments += 1 }
    }

    private func closeSegmentFile() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
        closed.append((segmentFirst, segmentSize, segmentLastMs))
    }

    private func roll() {
        closeSegmentFile()
        do {
            try openSegment(first: nextIndex)
        } catch {
            failed("\(error)")
        }
        applyRetention(now: now())
    }

    private func applyRetention(now t: Int64) {
        // A journal that has been quiet past the age limit: close its segment so it can go too.
        if fd >= 0, segmentSize > Int64(JournalRecord.segmentMagic.count),
           Double(t - segmentLastMs) > settings.maxAge * 1000 { roll(); return }
        var total = statsLock.withLock { stats.bytes }
        while let oldest = closed.first,
              total > Int64(settings.maxBytes) || Double(t - oldest.lastMs) > settings.maxAge * 1000 {
            let path = JournalSegments.path(directory, first: oldest.first)
            unlink(path)
            closed.removeFirst()
            total -= oldest.bytes
            let nextOldest = closed.first?.first ?? segmentFirst
            let oldestMs = Self.firstAppendedMs(JournalSegments.path(directory, first: nextOldest))
            statsLock.withLock {
                stats.bytes = total
                stats.segments -= 1
                stats.segmentsDeleted += 1
                stats.oldestIndex = oldestMs == nil ? nil : nextOldest
                stats.oldestAppendedMs = oldestMs
            }
        }
    }

    private func writeAll(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { raw in
            var offset = 0
            while offset < raw.count {
                let n = write(fd, raw.baseAddress! + offset, raw.count - offset)
                if n < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                offset += n
            }
            return true
        }
    }
}
