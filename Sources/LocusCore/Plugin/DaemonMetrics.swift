import Foundation

/// The running daemon's metrics (Prometheus text, docs/protocol.md 12), for a plugin that
/// serves HTTP itself (the `web` sink's `/metrics`). Plugins are built before the daemon that
/// counts exists, so `locus run` installs the renderer here when it starts and removes it when
/// it stops; elsewhere (`locus view`, `locus replay`, tests) there is none.
public enum DaemonMetrics {
    public struct Exposition: Sendable {
        public var contentType: String
        public var render: @Sendable () -> [UInt8]

        public init(contentType: String, render: @escaping @Sendable () -> [UInt8]) {
            self.contentType = contentType
            self.render = render
        }
    }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var installed: Exposition?

    /// Called by the daemon: its exposition, or nil when it stops.
    public static func install(_ exposition: Exposition?) { lock.withLock { installed = exposition } }

    /// The daemon's metrics now, or nil outside `locus run`.
    public static func current() -> (contentType: String, body: [UInt8])? {
        guard let e = lock.withLock({ installed }) else { return nil }
        return (e.contentType, e.render())
    }
}
