/// Why the framer dropped or passed over input. Every byte of input ends up in exactly one
/// bucket per line, so the counters explain a log's rejects without logging its contents.
public struct NMEAFramerStatistics: Sendable, Equatable {
    /// Sentences with a valid checksum (or none, where allowed) handed on.
    public var sentences = 0
    /// Sentences whose `*hh` did not match the XOR of the bytes between `$` and `*`.
    public var badChecksum = 0
    /// Sentences without `*hh`, dropped because `acceptMissingChecksum` is off.
    public var missingChecksum = 0
    /// Sentences accepted without a checksum because `acceptMissingChecksum` is on.
    public var acceptedWithoutChecksum = 0
    /// Lines longer than `maxSentenceLength`, dropped whole.
    public var overlong = 0
    /// Sentences with bytes outside printable ASCII (NUL, binary noise) inside them.
    public var invalidCharacters = 0
    /// Sentences cut short by a new `$`/`!` before their end of line.
    public var truncated = 0
    /// `!AIVDM` / `!AIVDO` (and other `!` encapsulated) lines, ignored.
    public var encapsulated = 0
    /// `#` comment lines (log headers).
    public var comments = 0
    /// Lines or fragments that do not start a sentence (garbage, binary noise, modem chatter).
    public var noise = 0

    /// All zero.
    public init() {}
}
