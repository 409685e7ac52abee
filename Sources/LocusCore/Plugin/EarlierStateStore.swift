/// A service whose state an earlier Locus kept in a store file of the service's own (region and
/// beacon kept `<state_directory>/<kind>-<id>.sqlite`, or their `database:` path, before the
/// runtime kept service state). At the first start with an empty runtime store, the runtime
/// copies the named collections of that file into the service's records, so what users added
/// with `locus ctl` survives the upgrade. The old file is left as it was.
///
/// An implementer must name only collections whose rows `restoreState` reads once prefixed:
/// each row `key` → `value` becomes the record `keyPrefix + key` → `value`.
public protocol ImportsEarlierStateStore: KeyedStatefulService {
    /// The earlier store, or nil when there is none to look for (no state directory).
    var earlierStateStore: EarlierStateStore? { get }
}

/// Where an earlier version kept a service's state, and what of it the runtime imports.
public struct EarlierStateStore: Sendable, Equatable {
    public var path: String
    /// The kind the earlier store was created for (`region`, `beacon`): a store of another kind
    /// is not read.
    public var kind: String
    /// Collection of the earlier store → prefix of the records its rows become.
    public var collections: [String: String]

    public init(path: String, kind: String, collections: [String: String]) {
        self.path = path
        self.kind = kind
        self.collections = collections
    }
}
