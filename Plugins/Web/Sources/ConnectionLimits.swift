import LocusCore
import NIOCore

/// What the gateway allows one connection, below HTTP's routes: the `web` sink's
/// `max_header_bytes`, `header_timeout`, `idle_timeout`, `write_timeout` and
/// `max_connections_per_address`, as the channel handlers that enforce them take them.
public struct ConnectionLimits: Sendable {
    public var maxHeaderBytes: Int
    public var headerTimeout: TimeAmount
    public var idleTimeout: TimeAmount
    public var writeTimeout: TimeAmount
    public var maxConnectionsPerAddress: Int
    /// How long a refused connection keeps reading (and discarding) what its client still
    /// sends after the refusal was written, before it is closed (`LingeringRefusal`).
    public var linger: TimeAmount = .seconds(2)

    public init(_ c: WebConfiguration) {
        maxHeaderBytes = c.maxHeaderBytes
        headerTimeout = Self.amount(c.headerTimeout)
        idleTimeout = Self.amount(c.idleTimeout)
        writeTimeout = Self.amount(c.writeTimeout)
        maxConnectionsPerAddress = c.maxConnectionsPerAddress
    }

    static func amount(_ seconds: Double) -> TimeAmount { .nanoseconds(Int64((seconds * 1e9).rounded())) }

    /// The head guard of a connection with these limits, counting into `counters`, as the
    /// gateway puts it in front of NIO's HTTP decoder (`GuardedHTTPChannel`). Public for the
    /// `webhead` fuzz target, which runs it on an `EmbeddedChannel`.
    public func requestHeadGuard(counters: SourceCounters<WebCounters>) -> any RemovableChannelHandler {
        RequestHeadGuard(limits: self, counters: counters)
    }
}
