/// Which devices a `gpsd-server` sink serves, from its `sources` setting and the config's own
/// source ids. Anyone on the ingest socket may publish `obs.fix.<anything>`; without this, 300
/// invented devices fill `max_devices` before the receiver's first fix (issue 49 item 6).
struct GpsdDeviceFilter: Sendable {
    /// `sources:` (device ids, or ids of this config's sources whose every device is served).
    let listed: Set<String>
    /// The config's source ids (`PluginSetup.sourceIds`); nil when no config made the sink
    /// (a test harness, an embedder): every device is then served, as before.
    let own: Set<String>?
    /// `fixes: standard`: the fixes come from the `standard` service (its `location.update`
    /// topics are reserved to it), not from the source itself.
    let standard: Bool

    init(listed: [String], own: [String]?, standard: Bool) {
        self.listed = Set(listed)
        self.own = own.map(Set.init)
        self.standard = standard
    }

    /// Whether `device`'s report, published by `producer`, is served.
    func serves(device: String, producer: String) -> Bool {
        if !listed.isEmpty {
            if listed.contains(device) { return true }
            // A listed source of this config serves every device it publishes: a fleet
            // source's phones. Its id is reserved to it as a producer name (docs/security.md),
            // so no outside publisher can pass for it.
            return listed.contains(producer) && own?.contains(producer) ?? true
        }
        guard let own else { return true }
        // The config's own sources publish obs.fix.<id> as producer <id>; an outside publisher
        // may use the topic but not the producer name (it is reserved), so it cannot pass for one.
        return own.contains(device) && (standard || producer == device)
    }
}
