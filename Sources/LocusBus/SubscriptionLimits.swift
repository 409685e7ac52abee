/// How many subscriptions the hub's publish socket takes from outside subscribers.
///
/// Every subscription is kept by ZeroMQ per connection; unchecked, one client sending a million
/// distinct prefixes took the daemon to 3.75 GB. The hub's XPUB runs in manual mode: the hub
/// itself accepts each subscription (or refuses it, counted as `subscription_limit`).
/// In-process subscribers (the runtime's plugins) are not limited.
///
/// What this does not bound: ZeroMQ 4.3's XPUB itself records every subscription message a
/// connection sends (in manual mode too) until that connection closes, and queues them until
/// the hub reads them. Cutting such a connection off was tried: SUB and XSUB sockets reconnect
/// and send every subscription again, so it only churned (measured in the issue 12 note).
public struct SubscriptionLimits: Sendable, Equatable {
    /// Distinct prefixes one connection may hold.
    public var perClient: Int
    /// Prefixes all outside connections together may hold.
    public var total: Int

    public static let defaultPerClient = 10_000
    public static let defaultTotal = 100_000

    public init(perClient: Int = SubscriptionLimits.defaultPerClient, total: Int = SubscriptionLimits.defaultTotal) {
        self.perClient = perClient
        self.total = total
    }
}

/// The subscriptions the hub has accepted, per connection (its file descriptor, which ZeroMQ
/// reports with each subscription message over ipc and tcp). Used on the hub thread only.
struct SubscriptionBook {
    let limits: SubscriptionLimits
    private var byConnection: [Int32: Set<[UInt8]>] = [:]
    private(set) var total = 0

    init(limits: SubscriptionLimits) { self.limits = limits }

    enum Decision {
        case accept, alreadyHeld
        /// Over the connection's own limit.
        case refuseClient
        /// Within the connection's limit, but all connections together are at theirs.
        case refuseTotal
    }

    /// Whether `prefix` from connection `fd` may be subscribed; records it if so.
    mutating func subscribe(_ prefix: [UInt8], fd: Int32) -> Decision {
        let held = byConnection[fd]?.count ?? 0
        if held > 0, byConnection[fd]!.contains(prefix) { return .alreadyHeld }
        guard held < limits.perClient else { return .refuseClient }
        guard total < limits.total else { return .refuseTotal }
        // In place: a copy of the set per subscription would make the first 10,000 quadratic.
        byConnection[fd, default: []].insert(prefix)
        total += 1
        return .accept
    }

    /// Forgets `prefix` of `fd`; true if it was held (so ZeroMQ must drop it too).
    mutating func unsubscribe(_ prefix: [UInt8], fd: Int32) -> Bool {
        guard byConnection[fd]?.remove(prefix) != nil else { return false }
        total -= 1
        if byConnection[fd]?.isEmpty == true { byConnection[fd] = nil }
        return true
    }

    /// The connection closed: ZeroMQ drops its subscriptions itself.
    mutating func disconnected(fd: Int32) {
        if let held = byConnection.removeValue(forKey: fd) { total -= held.count }
    }

    func count(fd: Int32) -> Int { byConnection[fd]?.count ?? 0 }
}
