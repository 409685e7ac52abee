/// A sink or service whose `subscriptions` include topics that a config may well not produce,
/// where that is no mistake: the `gpsd-server` sink takes `obs.nmea.` for clients that want
/// NMEA, which only sources asked to pass sentences on publish. The config check, which
/// otherwise refuses a subscription that matches nothing produced, passes these over.
public protocol OptionalSubscriptions {
    /// Prefixes among `subscriptions` that need not match anything produced.
    var optionalSubscriptions: [String] { get }
}
