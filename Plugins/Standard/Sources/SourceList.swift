import LocusCore

/// The `sources` option: which fix sources a service listens to, in order of preference.
struct SourceList: Sendable {
    /// Preference rank by source id (0 = most preferred); empty when every source is accepted.
    private let rank: [String: Int]

    init(_ sources: [String]) {
        var rank: [String: Int] = [:]
        for (i, s) in sources.enumerated() where rank[s] == nil { rank[s] = i }
        self.rank = rank
    }

    /// True if fixes of `source` are used. Needed on top of the subscriptions because the
    /// subscription `obs.fix.gps0` is a byte prefix and also matches `obs.fix.gps01`.
    func contains(_ source: String) -> Bool { rank.isEmpty || rank[source] != nil }

    /// Lower is preferred; every source ranks 0 when the list is empty.
    func preference(of source: String) -> Int { rank[source] ?? 0 }
}
