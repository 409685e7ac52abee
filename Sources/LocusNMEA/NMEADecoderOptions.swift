import LocusCore

/// Settings of `NMEADecoder`.
public struct NMEADecoderOptions: Sendable {
    /// `Fix.source` / `SkyView.source` of everything decoded.
    public var source: String
    /// Framing limits and checksum policy.
    public var framing: NMEAFramer.Options
    /// The UTC day (of this instant) to date epochs with while no RMC or ZDA has given a date.
    /// nil: such epochs are dropped and counted (`fixesWithoutDate`); the wall clock is never used.
    public var fallbackDate: EventTime?
    /// Epochs without a date (before the first RMC or ZDA, and no `fallbackDate`) held back, at
    /// most this many, to be dated once a date arrives: counting the midnights the time of day
    /// passed between each of them and the dated epoch (backwards from it). 0: dropped at once
    /// and counted (`fixesWithoutDate`), as a live receiver's are. Past the bound the oldest is
    /// dropped and counted. A gap of more than 24 h between epochs cannot be seen in the time
    /// of day: such epochs get a date one or more days too late.
    public var holdUndatedEpochs = 0
    /// Also drop (and count) held epochs more than this many seconds older, in the receiver's
    /// time of day, than the newest one: a live receiver's fixes wait at most this long for a
    /// date. nil: only `holdUndatedEpochs` bounds them (a log read to its end).
    public var holdUndatedSeconds: Double?
    /// Date epochs that have no RMC/ZDA date with the UTC day of the clock given to
    /// `NMEADecoder.setClock` (`date: system`, for a receiver that never sends a date): of the
    /// day before, the same day and the day after, the one that puts the epoch nearest the
    /// clock — so an epoch at 23:59:59 read at 00:00:01 gets the day before. An RMC/ZDA date,
    /// when one comes, wins.
    public var dateFromClock = false
    /// 1-sigma user range error (m) for accuracies from DOPs when there is no GST.
    public var userRangeError: Double
    /// Assemble and emit sky views. Off, GSV sentences are only counted (a consumer that wants
    /// fixes alone saves the satellite lists).
    public var skyViews: Bool = true

    /// Defaults: source `nmea`, 256-byte sentences, checksums required, no fallback date,
    /// `NMEAUnits.userEquivalentRangeError`.
    public init(source: String = "nmea", framing: NMEAFramer.Options = .init(), fallbackDate: EventTime? = nil,
                userRangeError: Double = NMEAUnits.userEquivalentRangeError) {
        self.source = source
        self.framing = framing
        self.fallbackDate = fallbackDate
        self.userRangeError = userRangeError
    }
}
