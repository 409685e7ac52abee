/// Where a condition was defined. Config wins for its own ids at start; only runtime
/// conditions can be removed with `locus ctl <kind> remove`.
public enum ConditionOrigin: String, Sendable, Equatable {
    /// Inline in config.yaml (`regions:`, `conditions:`).
    case config
    /// A feature of a watched file (`region`'s GeoJSON `file:`).
    case file
    /// Added with `locus ctl <kind> add`; kept in the service's state.
    case runtime
}
