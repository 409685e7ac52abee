import LocusCore

/// Options of the `visits` service. Distances in metres, durations in seconds of event time.
public struct VisitsConfiguration: DeclaredConfiguration, Equatable {
    /// Fixes within this distance of the stay's centre belong to the stay.
    // Below a few metres a stay is indistinguishable from GNSS noise; beyond 10 km it is a region, not a place.
    @Setting("radius", "Metres: fixes within this distance of the stay's centre belong to the stay.", check: .within(5...10_000, unit: "m"))
    public var radius: Double = 100

    /// How long the fixes must stay within `radius` before `visit.arrival` is published.
    @Setting("min_stay", "Seconds the fixes must stay within `radius` before visit.arrival is published.", check: .above(0, unit: "s"))
    public var minStay: Double = 300

    /// Longest silence (no usable fix) that can be part of a stay.
    @Setting("max_gap", "Seconds without a usable fix that can still be part of a stay (12 h); a longer silence ends the visit at its last fix.",
             check: .above(0, unit: "s"))
    public var maxGap: Double = 43_200

    /// How long a source must be seen outside `radius` plus its fix accuracy before the visit ends.
    @Setting("departure_confirmation", "Seconds a source must be seen beyond `radius` plus its fix accuracy before visit.departure, so a single outlier does not end a visit.",
             check: .atLeast(0, unit: "s"))
    public var departureConfirmation: Double = 120

    /// Fixes whose 1-sigma horizontal accuracy is worse than this are ignored.
    @Setting("max_accuracy", "Metres: fixes with a worse 1-sigma horizontal accuracy (h_accuracy) are ignored; fixes without one are used.",
             check: .above(0, unit: "m"))
    public var maxAccuracy: Double = 100

    /// Fix sources to watch; empty watches all.
    @Setting("sources", "Fix sources to watch; empty watches all. Each source has its own visits.", check: .sourceIds)
    public var sources: [String] = []

    public init() {}

    public func validate() throws {
        // A confirmation as long as max_gap could never be reached without the gap ending the visit first.
        guard departureConfirmation < maxGap else {
            throw ConfigValueError(key: "departure_confirmation",
                                   "departure_confirmation must be below max_gap (\(maxGap.settingText) s), found \(departureConfirmation.settingText)")
        }
    }

    public static func == (a: Self, b: Self) -> Bool {
        a.radius == b.radius && a.minStay == b.minStay && a.maxGap == b.maxGap && a.departureConfirmation == b.departureConfirmation
            && a.maxAccuracy == b.maxAccuracy && a.sources == b.sources
    }
}
