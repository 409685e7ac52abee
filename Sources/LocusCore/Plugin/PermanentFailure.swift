/// Thrown by a plugin when restarting it cannot help — a recording that is not a valid file of
/// its format fails the same way every time. The runtime reports the plugin `failed` with
/// `reason` on `status.<id>` and in `locus ctl status`, and does not restart it; everything else
/// keeps running. Any other error is taken as transient: the plugin is restarted with backoff.
public struct PermanentFailure: Error, CustomStringConvertible, Sendable {
    public var reason: String

    public init(_ reason: String) { self.reason = reason }

    public var description: String { reason }
}
