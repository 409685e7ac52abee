import Foundation

/// Counters of the control socket, for `locus ctl status`.
public struct ControlStatistics: Sendable, Equatable {
    /// Why a request got an error reply without reaching its command.
    public enum Refusal: String, Sendable, CaseIterable {
        /// Not one frame of UTF-8 JSON, or not a REQ envelope.
        case malformed
        /// Over `hub.control_max_request_bytes`.
        case tooLarge = "too_large"
        /// `maxConcurrentRequests` already running.
        case busy
        /// The client sent more than `requestsPerSecond` (on average, bursts of twice that).
        case rateLimited = "rate_limited"
    }

    /// Requests handed to their command (answered, or still running).
    public var accepted: UInt64 = 0
    /// Requests running now.
    public var inProgress: Int = 0
    public var refused: [Refusal: UInt64] = [:]

    public init() {}
}

final class ControlCounters: @unchecked Sendable {
    /// Guards `value`.
    private let lock = NSLock()
    private var value = ControlStatistics()

    func count(_ refusal: ControlStatistics.Refusal) {
        lock.withLock { value.refused[refusal, default: 0] += 1 }
    }

    /// Takes a slot for a request; false when `limit` are running.
    func begin(limit: Int) -> Bool {
        lock.withLock {
            guard value.inProgress < limit else { return false }
            value.inProgress += 1
            value.accepted += 1
            return true
        }
    }

    func end() { lock.withLock { value.inProgress -= 1 } }

    var snapshot: ControlStatistics { lock.withLock { value } }
}
