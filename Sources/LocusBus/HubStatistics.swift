import LocusCore

/// Why the hub refused a message. Raw values are the names used in logs and metrics.
public enum DropReason: String, CaseIterable, Sendable, Hashable {
    /// Not exactly two frames (topic, body).
    case wrongFrameCount = "wrong_frame_count"
    /// The topic frame is not a valid topic (see `Topic.isValid`).
    case badTopic = "bad_topic"
    /// The body is larger than `HubLimits.maxMessageBytes`.
    case tooLarge = "too_large"
    case notJSON = "not_json"
    case missingField = "missing_field"
    case wrongFieldType = "wrong_field_type"
    case unknownType = "unknown_type"
    case badPayload = "bad_payload"
    /// Not a message: a subscription from an outside subscriber past `SubscriptionLimits`,
    /// refused (the subscriber does not get that topic).
    case subscriptionLimit = "subscription_limit"
    /// From an outside publisher (an ipc or tcp connection): a topic or producer name that
    /// belongs to Locus's in-process plugins or Locus itself, not granted by `allow_topics`.
    case reserved = "reserved"
    /// From an outside publisher's connection sending more than `HubLimits.ingestRatePerClient`.
    case rateLimit = "rate_limit"

    /// The drop reason for a refusal by LocusCore's envelope codec (same names).
    public init(_ problem: EnvelopeProblem) {
        switch problem {
        case .notJSON: self = .notJSON
        case .missingField: self = .missingField
        case .wrongFieldType: self = .wrongFieldType
        case .unknownType: self = .unknownType
        case .badPayload: self = .badPayload
        }
    }

    /// Position in `allCases`, for counting in a fixed array.
    var index: Int {
        switch self {
        case .wrongFrameCount: return 0
        case .badTopic: return 1
        case .tooLarge: return 2
        case .notJSON: return 3
        case .missingField: return 4
        case .wrongFieldType: return 5
        case .unknownType: return 6
        case .badPayload: return 7
        case .subscriptionLimit: return 8
        case .reserved: return 9
        case .rateLimit: return 10
        }
    }
}

/// A snapshot of the hub's counters since it started.
public struct HubStatistics: Sendable, Equatable {
    /// Messages passed from ingest to publish.
    public var forwarded: UInt64 = 0
    /// Subscriptions outside subscribers hold now (see `SubscriptionLimits`).
    public var subscriptions = 0
    /// Outside subscriber connections the hub closed because they sent more subscriptions past
    /// the limits than `SubscriptionLimits.perClient` (see `SubscriptionLimits`).
    public var subscribersCutOff: UInt64 = 0
    /// Refused messages by reason name (`DropReason.rawValue`, e.g. `bad_topic`); every reason
    /// is present, zero if never seen, so status output has stable keys.
    public var dropped: [String: UInt64] = Dictionary(uniqueKeysWithValues: DropReason.allCases.map { ($0.rawValue, 0) })

    public init() {}

    /// Messages refused for `reason`.
    public func dropped(_ reason: DropReason) -> UInt64 { dropped[reason.rawValue] ?? 0 }
    public var droppedTotal: UInt64 { dropped.values.reduce(0, +) }
}
