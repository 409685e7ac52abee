/// A snapshot of a journal's counters and extent, safe to read from any thread.
public struct JournalStatistics: Sendable, Equatable {
    /// Records appended and written since the daemon started.
    public var appended: UInt64 = 0
    /// Messages that could not be written (disk full, I/O error); the hub forwarded them anyway.
    public var notWritten: UInt64 = 0
    /// Bytes of all segment files.
    public var bytes: Int64 = 0
    public var segments = 0
    /// Index and append time (ms since 1970) of the oldest record retained; nil when empty.
    public var oldestIndex: UInt64?
    public var oldestAppendedMs: Int64?
    /// Index of the newest record written; nil when empty.
    public var newestIndex: UInt64?
    /// Segments deleted by retention since the daemon started.
    public var segmentsDeleted: UInt64 = 0
    /// Bytes cut off the newest segment at open (a record a kill left half-written).
    public var recoveredBytes: Int64 = 0
    /// Set while writes fail (a full disk): the error, and when (ms since 1970) the failing began.
    /// The journal retries the same segment with backoff and creates no file meanwhile.
    public var writeError: String?
    public var writeFailingSinceMs: Int64?

    public init() {}
}
