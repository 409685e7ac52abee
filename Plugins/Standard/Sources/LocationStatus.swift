import LocusCore

/// A change of one of the standard service's diagnostic conditions (`location.status`, topic
/// `location.status.<service-id>`), like Core Location's update flags. Published only when a
/// condition becomes active or is cleared, never repeated.
public struct LocationStatus: Payload, Equatable {
    public static let eventType = "location.status"
    public static let schemaVersion = 1

    public enum Condition: String, Sendable, CaseIterable {
        /// No usable fix (one with a position that meets `max_horizontal_accuracy`) for `unavailable_after` seconds.
        case locationUnavailable = "location_unavailable"
        /// Fixes with a position keep coming, but for `unavailable_after` seconds none met
        /// `max_horizontal_accuracy`; always active together with `location_unavailable`, and says why.
        case accuracyLimited = "accuracy_limited"
        /// A source reported its device lost (`status.<source>`), or sent no fix for `source_timeout` seconds.
        case sourceDisconnected = "source_disconnected"
    }

    /// Which condition changed.
    public var condition: Condition
    /// True when the condition has just become active, false when it has just been cleared.
    public var active: Bool
    /// The source concerned: always for `source_disconnected`; for `accuracy_limited`, the source
    /// of the latest fix refused for its accuracy; for the others, the source whose fix cleared it.
    public var source: String?
    /// Why, for people: what was (not) received and for how long.
    public var reason: String

    public init(condition: Condition, active: Bool, source: String? = nil, reason: String) {
        self.condition = condition
        self.active = active
        self.source = source
        self.reason = reason
    }
}
