/// A stateful service that says what becomes of its saved state when its configuration changed
/// since the state was saved (a fence's shape, a visit's thresholds). The runtime notices the
/// change (a fingerprint of the entry's configuration is stored with the state) and, after the
/// state is restored into the new instance, logs once: "configuration of <id> changed since its
/// state was saved: <stateAfterConfigurationChange>", with how to start over.
///
/// Without it the line says the state is kept as it was.
public protocol ExplainsConfigurationChange {
    /// What the restored instance did with the old state, in a few words for a log line
    /// ("fences whose shape changed (home) start unknown; the others keep their state").
    /// Read after `restoreState`.
    var stateAfterConfigurationChange: String { get }
}
