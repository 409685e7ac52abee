/// Counters of a decoder run: framing rejects plus what became of the valid sentences. Every
/// valid sentence (`framing.sentences`) lands in exactly one of `decoded`, `proprietary`,
/// `unsupported` and `outsideEpoch`.
public struct NMEAStatistics: Sendable, Equatable {
    public var framing = NMEAFramerStatistics()
    /// Valid sentences of a supported type (GGA, RMC, GLL, GNS, GSA, GSV, VTG, ZDA, GST, HDT, TXT).
    public var decoded = 0
    /// `$P…` proprietary sentences passed over.
    public var proprietary = 0
    /// Valid sentences of other types (marine, AIS-free `$..XXX`), passed over.
    public var unsupported = 0
    /// Untimed sentences (GSA, GSV, VTG, HDT) or timed ones with an unreadable time, seen
    /// before any epoch had started: nothing to attach them to.
    public var outsideEpoch = 0
    /// Fixes emitted (one per epoch with a position sentence and a date).
    public var fixes = 0
    /// Sky views emitted (one per epoch that completed a GSV sequence).
    public var skyViews = 0
    /// Epochs dated with `fallbackDate` because no RMC/ZDA had given a date yet.
    public var fixesWithFallbackDate = 0
    /// Epochs dropped because no date was known and no `fallbackDate` was set (with
    /// `holdUndatedEpochs`: because no date came at all, or more were waiting than it allows).
    public var fixesWithoutDate = 0
    /// Epochs held without a date and dated from a later RMC/ZDA (`holdUndatedEpochs`).
    public var fixesDatedBackwards = 0
    /// Epochs dated from the clock (`dateFromClock`).
    public var fixesWithClockDate = 0
    /// RMC and ZDA sentences that gave a date.
    public var datesSeen = 0
    /// Times of day that went back by more than 12 h: taken as a pass through midnight UTC.
    public var midnightRollovers = 0

    /// All zero.
    public init() {}

    /// The decoder used `fallbackDate` at least once.
    public var usedFallbackDate: Bool { fixesWithFallbackDate > 0 }
}
