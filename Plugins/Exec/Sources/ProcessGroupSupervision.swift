#if canImport(Glibc)
import Glibc
#endif
import Foundation
import Logging

/// Watches one spawned program on a thread of its own: logs its output (rate-limited), reaps it,
/// and ends it — and everything left in its process group — when it exits or when asked to stop.
///
/// - The plugin's life is the direct child's: when it exits, whatever it left running in its
///   group gets SIGTERM, then SIGKILL after `stopTimeout`, and the plugin ends with the child's
///   status (a background `sleep` holding the pipes no longer keeps it "running").
/// - `requestStop()` (shutdown) sends SIGTERM to the group, SIGKILL after `stopTimeout`.
/// - `finished` yields the child's `waitpid` status once the group is gone (or, if some process
///   in it cannot be reaped, shortly after it was sent SIGKILL).
///
/// A blocking loop on purpose: `poll` with a 50 ms timeout, never on the cooperative pool.
final class ProcessGroupSupervision: @unchecked Sendable {
    let group: SpawnedProcessGroup
    let stopTimeout: Double
    let logger: Logger
    private var limiter: LogLineLimiter
    /// Guards `stopRequested`, `result`, `waiter` and `lastError` (`limiter` and `chunkTime` are
    /// used only by the supervision thread).
    private let lock = NSLock()
    private var stopRequested = false
    private var result: Int32?
    private var waiter: CheckedContinuation<Int32, Never>?

    init(group: SpawnedProcessGroup, stopTimeout: Double, logLinesPerSecond: Double, logger: Logger) {
        self.group = group
        self.stopTimeout = stopTimeout
        self.logger = logger
        self.limiter = LogLineLimiter(perSecond: logLinesPerSecond)
    }

    /// Waits for the child's `waitpid` status, once the group is gone. Deliberately not ended
    /// by task cancellation (an `AsyncStream` would be): shutdown must wait for the processes.
    func finished() async -> Int32 {
        await withCheckedContinuation { continuation in
            let done: Int32? = lock.withLock {
                if result == nil { waiter = continuation }
                return result
            }
            if let done { continuation.resume(returning: done) }
        }
    }

    func start() {
        let thread = Thread { [self] in
            let status = supervise()
            let waiting = lock.withLock {
                result = status
                defer { waiter = nil }
                return waiter
            }
            waiting?.resume(returning: status)
        }
        thread.name = "locus.exec"
        thread.start()
    }

    /// Asks the group to stop (SIGTERM now, SIGKILL after `stopTimeout`). Safe from any thread.
    func requestStop() {
        lock.withLock { stopRequested = true }
    }

    private var isStopRequested: Bool { lock.withLock { stopRequested } }

    private func supervise() -> Int32 {
        var out = OutputLines(fd: group.stdoutFD, stream: "stdout")
        var err = OutputLines(fd: group.stderrFD, stream: "stderr")
        var termSentAt: Double?
        var killSentAt: Double?
        while true {
            var fds: [pollfd] = []
            if out.open { fds.append(pollfd(fd: out.fd, events: Int16(POLLIN), revents: 0)) }
            if err.open { fds.append(pollfd(fd: err.fd, events: Int16(POLLIN), revents: 0)) }
            if fds.isEmpty {
                usleep(50_000)
            } else {
                _ = poll(&fds, nfds_t(fds.count), 50)
            }
            read(&out)
            read(&err)
            group.reap()
            let now = Self.monotonicNow()
            if termSentAt == nil && (isStopRequested || group.childExited) {
                // On its own exit the child may have left processes behind in its group.
                if group.groupAlive { group.signalGroup(SIGTERM) }
                termSentAt = now
            }
            if let t = termSentAt, killSentAt == nil, now - t >= stopTimeout, group.groupAlive {
                if !group.childExited {
                    logger.warning("did not stop within stop_timeout after SIGTERM; sending SIGKILL",
                                   metadata: ["stop_timeout": "\(stopTimeout)"])
                }
                group.signalGroup(SIGKILL)
                killSentAt = now
            }
            if group.childExited && !group.groupAlive { break }
            // A process of the group that is not ours to reap (a zombie whose parent lives on)
            // must not hold shutdown forever.
            if let k = killSentAt, now - k >= 2, group.childExited { break }
        }
        // What the program wrote before it went.
        read(&out, untilEmpty: true)
        read(&err, untilEmpty: true)
        chunkTime = Self.monotonicNow()
        group.closePipes()
        out.flush(self)
        err.flush(self)
        reportSuppressed(force: true)
        return group.exitStatus ?? 0
    }

    private func read(_ lines: inout OutputLines, untilEmpty: Bool = false) {
        // Bounded per round, so a flood on one pipe cannot starve reaping and stopping.
        for _ in 0..<(untilEmpty ? 1024 : 16) {
            guard lines.open else { return }
            chunkTime = Self.monotonicNow()
            let more = lines.readChunk(self)
            reportSuppressed(force: false)
            if !more { return }
        }
    }

    /// When the chunk being split was read: one clock read per chunk, not per line.
    var chunkTime = 0.0

    /// The last line (not blank) the program wrote to standard error, cut to 200 characters.
    var lastErrorLine: String? {
        let bytes = lock.withLock { lastError }
        guard !bytes.isEmpty else { return nil }
        return String(String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).prefix(200))
    }
    /// Its first bytes, leading blanks skipped: copied per line (a program may write millions
    /// a second, most of them past the log limit), decoded only when asked for.
    private var lastError: [UInt8] = []
    private static let lastErrorBytes = 800

    /// One complete line from `stream`: logged if the rate limit allows, counted otherwise.
    func emit(_ bytes: UnsafeBufferPointer<UInt8>, stream: String) {
        if stream == "stderr", let start = bytes.firstIndex(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) {
            let kept = bytes[start ..< min(bytes.count, start + Self.lastErrorBytes)]
            lock.withLock {
                lastError.removeAll(keepingCapacity: true)
                lastError.append(contentsOf: kept)
            }
        }
        guard limiter.admit(at: chunkTime) else { return }
        let line = String(decoding: bytes, as: UTF8.self)
        if stream == "stderr" {
            logger.info("\(line)", metadata: ["stream": "stderr"])
        } else {
            logger.debug("\(line)", metadata: ["stream": "stdout"])
        }
    }

    private func reportSuppressed(force: Bool) {
        guard let s = limiter.summary(at: chunkTime, force: force) else { return }
        logger.warning("output lines over the log limit were not logged", metadata: [
            "suppressed": "\(s.lines)", "seconds": "\(Int(s.seconds.rounded()))",
            "suppressed_total": "\(s.total)", "log_lines_per_second": "\(limiter.perSecond)",
        ])
    }

    static func monotonicNow() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// The unfinished line of one pipe; lines longer than 8 KiB are cut there.
struct OutputLines {
    let fd: Int32
    let stream: String
    private(set) var open = true
    private var partial: [UInt8] = []
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)
    static let maxLine = 8192

    init(fd: Int32, stream: String) {
        self.fd = fd
        self.stream = stream
    }

    /// Reads what is there; false when nothing more is available now (or the pipe closed).
    mutating func readChunk(_ sink: ProcessGroupSupervision) -> Bool {
        let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        if n == 0 {
            open = false
            return false
        }
        if n < 0 {
            if errno == EINTR { return true }
            if errno != EAGAIN && errno != EWOULDBLOCK { open = false }
            return false
        }
        chunk.withUnsafeBufferPointer { buffer in
            var start = 0
            while start < n, let newline = buffer[start..<n].firstIndex(of: 0x0A) {
                if partial.isEmpty {
                    sink.emit(UnsafeBufferPointer(rebasing: buffer[start..<min(newline, start + Self.maxLine)]), stream: stream)
                } else {
                    partial.append(contentsOf: buffer[start..<min(newline, start + max(0, Self.maxLine - partial.count))])
                    partial.withUnsafeBufferPointer { sink.emit($0, stream: stream) }
                    partial.removeAll(keepingCapacity: true)
                }
                start = newline + 1
            }
            if start < n, partial.count < Self.maxLine {
                partial.append(contentsOf: buffer[start..<min(n, start + Self.maxLine - partial.count)])
            }
        }
        return true
    }

    mutating func flush(_ sink: ProcessGroupSupervision) {
        if !partial.isEmpty { partial.withUnsafeBufferPointer { sink.emit($0, stream: stream) } }
        partial.removeAll()
    }
}
