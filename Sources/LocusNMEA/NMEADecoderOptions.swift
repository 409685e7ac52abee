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
