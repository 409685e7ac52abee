import LocusCore

/// What the decoder produces: one per closed epoch, stamped with the epoch's UTC time.
public enum NMEAObservation: Equatable, Sendable {
    /// A position fix (mode `none` when the receiver had none) at the epoch's UTC time.
    case fix(Fix, EventTime)
    /// The satellites of the GSV sequences completed in the epoch.
    case sky(SkyView, EventTime)
}
