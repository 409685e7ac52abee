import LocusCore

/// Options of the `odometer` service. Each key is declared once, on its property: name, doc
/// line, default (the initial value) and check. Decoding (with file:line:column errors),
/// `locus plugins` and docs all read these declarations.
public struct OdometerConfiguration: DeclaredConfiguration {
    @Setting("every", "Metres between two readings of a source.", check: .above(0))
    public var every: Double = 1000

    @Setting("min_step", "A fix counts once it is this many metres from the last one counted, so a standing receiver's jitter adds nothing.",
             check: .atLeast(0))
    public var minStep: Double = 5

    @Setting("max_accuracy", "Fixes whose horizontal accuracy is worse than this many metres are skipped.", check: .above(0))
    public var maxAccuracy: Double = 50

    @Setting("sources", "Fix sources to measure; empty measures all.")
    public var sources: [String] = []

    public init() {}
}
