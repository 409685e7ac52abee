/// Where reading resumes from a position (the stream sequence of the last message handled),
/// given the sequences the stream holds now. A position is outside bytes too: it may come from
/// another history of the stream (deleted and recreated, restored from a backup) or be forged.
///
/// The rule (Plugins/NATS/README.md, "Groups"):
/// - within the stream (`first - 1 ... last`): read after it;
/// - past the stream's last sequence: the position belongs to another history; read from the
///   stream's first message, and the position's service state is discarded;
/// - before the stream's first message: what came between was removed by retention (`max_age`,
///   limits); read from the first message the stream holds, the state is kept.
public enum StreamResume: Equatable, Sendable {
    /// Read after this sequence (0: from the first message).
    case after(UInt64)
    /// The position is past `last`, the stream's last sequence: read from the first message.
    case pastStream(position: UInt64, last: UInt64)
    /// The messages after the position up to `first` are gone: read from `first`.
    case beforeStream(position: UInt64, first: UInt64)

    /// `first`, `last`: the stream's first and last sequences as its info gives them (an empty
    /// stream has `last` 0, or `first` = `last` + 1 once its messages were removed).
    public static func resume(after position: UInt64, first: UInt64, last: UInt64) -> StreamResume {
        if position > last { return .pastStream(position: position, last: last) }
        if first > 1, position < first - 1 { return .beforeStream(position: position, first: first) }
        return .after(position)
    }

    /// The sequence to read after: 0 (from the first message) unless the position was within the stream.
    public var readAfter: UInt64 {
        switch self {
        case .after(let s): return s
        case .pastStream: return 0
        case .beforeStream(_, let first): return first - 1
        }
    }
}
