import LocusCore

/// What a restart with changed settings (`radius`, `min_stay`, …) does to the saved state
/// (issue 50): each source's candidate stay, open visit and excursion are kept, and judged by the
/// new settings from the next fix on; visits published before are not revised.
extension VisitsService: ExplainsConfigurationChange {
    public var stateAfterConfigurationChange: String {
        "each source's candidate stay, open visit and excursion are kept and judged by the new settings from the next fix; visits published before are not revised"
    }
}
