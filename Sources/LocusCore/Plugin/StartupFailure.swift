/// An error a plugin may throw to say whether it ended right after it started: a program that
/// exits at once with a missing module or a usage error will do the same on every restart.
/// The runtime restarts such a plugin with backoff like any other failure, but after
/// `StartupFailureStreak.limit` failures in a row that ended at start with the same
/// description it reports the plugin `failed` and stops restarting it. A plugin that fails
/// after running a while (a lost connection) should say `endedAtStart == false`: it is
/// restarted for ever.
public protocol StartupFailure: Error, CustomStringConvertible {
    /// True when the plugin ended so soon after starting that a restart will likely repeat it.
    var endedAtStart: Bool { get }
}

/// Counts failures in a row that ended at start with the same description.
public struct StartupFailureStreak: Sendable {
    /// Identical failures at start in a row after which the plugin is not restarted.
    public static let limit = 3

    private var last: String?
    public private(set) var count = 0

    public init() {}

    /// Records one failure; true when the streak has reached `limit`.
    public mutating func record(_ error: any Error) -> Bool {
        guard let failure = error as? any StartupFailure, failure.endedAtStart else {
            last = nil
            count = 0
            return false
        }
        let text = failure.description
        count = text == last ? count + 1 : 1
        last = text
        return count >= Self.limit
    }
}
