import LocusCore

/// How many subscriptions the hub's publish socket takes from outside subscribers.
///
/// Every subscription is kept by ZeroMQ per connection; unchecked, one client sending a million
/// distinct prefixes took the daemon to 3.75 GB. The hub's XPUB runs in manual mode: the hub
/// itself accepts each subscription (or refuses it, counted as `subscription_limit`).
/// In-process subscribers (the runtime's plugins) are not limited.
///
/// Both a count and bytes: ZeroMQ stores a prefix as a trie with a node per byte, about 60 bytes
/// of memory per prefix byte (10,000 prefixes of 250 bytes took 155 MB), so long prefixes are
/// bounded by their total length, short ones by their number.
///
/// ZeroMQ 4.3's XPUB also records every subscription message a connection sends, refused ones
/// included (manual mode keeps them to clean up when the connection closes), so refusing alone
/// does not bound memory: a connection that sends more than `perClient` subscriptions the hub
/// has refused (or more than `perClientBytes` of them) is disconnected (`SubscriptionBook.Decision.cutOff`). Such a client (SUB and
/// XSUB reconnect by themselves and send all their subscriptions again) is cut off again on
/// every reconnect, which costs the hub one connection's worth of work per reconnect interval.
public struct SubscriptionLimits: SettingGroup, Equatable {
    @Setting("max_subscriptions_per_client", "Distinct topic prefixes one outside subscriber connection may hold; more are refused (subscription_limit).",
             check: .within(1...10_000_000))
    public var perClient: Int = 10_000

    @Setting("max_subscriptions", "Distinct prefixes all outside subscribers together may hold.", check: .within(1...10_000_000))
    public var total: Int = 100_000

    // At least one subscription of the longest topic (255 bytes and a dot).
    @Setting("max_subscription_bytes_per_client", "Total length of the prefixes one outside subscriber connection may hold.",
             check: .bytes(256...(1 << 30)))
    public var perClientBytes: Int = 65_536

    @Setting("max_subscription_bytes", "Total length of the prefixes all outside subscribers together may hold.", check: .bytes(256...(1 << 30)))
    public var totalBytes: Int = 1_048_576

    public init() {}

    /// Limits as given, the defaults for the bytes not given.
    public init(perClient: Int, total: Int, perClientBytes: Int? = nil, totalBytes: Int? = nil) {
        self.perClient = perClient
        self.total = total
        if let perClientBytes { self.perClientBytes = perClientBytes }
        if let totalBytes { self.totalBytes = totalBytes }
    }
}

/// The subscriptions the hub has accepted, per connection (its file descriptor, which ZeroMQ
/// reports with each subscription message over ipc and tcp), and what the hub knows of each
/// connection from the publish socket's monitor. Used on the hub thread only.
///
/// A descriptor number is reused once its connection closes, and a closed connection's last
/// messages may still be read after its disconnect event; the monitor's events (accepted,
/// disconnected) come in the order they happened, and a connection's accepted event before any
/// of its messages, so a descriptor's state is the last event seen for it.
struct SubscriptionBook {
    let limits: SubscriptionLimits
    private var byConnection: [Int32: Set<[UInt8]>] = [:]
    /// Refused subscriptions per connection, towards its cut-off.
    private var refusedByConnection: [Int32: (count: Int, bytes: Int)] = [:]
    private var bytesByConnection: [Int32: Int] = [:]
    private var states: [Int32: ConnectionState] = [:]
    private(set) var total = 0
    private(set) var totalBytes = 0

    init(limits: SubscriptionLimits) { self.limits = limits }

    enum ConnectionState: Equatable {
        /// No event seen (the monitor drops events when its queue is full): taken as open.
        case unknown
        case open
        /// Shut down by the hub; its disconnect event has not come yet.
        case cutOff
        /// Its disconnect event came: later messages with this descriptor were sent before.
        case closed
    }

    enum Decision {
        case accept, alreadyHeld
        /// Over the connection's own limit.
        case refuseClient
        /// Within the connection's limit, but all connections together are at theirs.
        case refuseTotal
        /// Refused, and the connection has now had more than `perClient` refusals (or more
        /// than `perClientBytes` refused): close it.
        case cutOff
    }

    func state(fd: Int32) -> ConnectionState { states[fd] ?? .unknown }

    /// Whether `prefix` from connection `fd` may be subscribed; records it if so.
    mutating func subscribe(_ prefix: [UInt8], fd: Int32) -> Decision {
        let held = byConnection[fd]?.count ?? 0
        if held > 0, byConnection[fd]!.contains(prefix) { return .alreadyHeld }
        let heldBytes = bytesByConnection[fd] ?? 0
        let withinClient = held < limits.perClient && heldBytes + prefix.count <= limits.perClientBytes
        guard withinClient, total < limits.total, totalBytes + prefix.count <= limits.totalBytes else {
            var refused = refusedByConnection[fd] ?? (0, 0)
            refused.count += 1
            refused.bytes += prefix.count
            refusedByConnection[fd] = refused
            if refused.count > limits.perClient || refused.bytes > limits.perClientBytes { return .cutOff }
            return withinClient ? .refuseTotal : .refuseClient
        }
        // In place: a copy of the set per subscription would make the first 10,000 quadratic.
        byConnection[fd, default: []].insert(prefix)
        bytesByConnection[fd] = heldBytes + prefix.count
        total += 1
        totalBytes += prefix.count
        return .accept
    }

    /// Forgets `prefix` of `fd`; true if it was held (so ZeroMQ must drop it too).
    mutating func unsubscribe(_ prefix: [UInt8], fd: Int32) -> Bool {
        guard byConnection[fd]?.remove(prefix) != nil else { return false }
        total -= 1
        totalBytes -= prefix.count
        bytesByConnection[fd, default: 0] -= prefix.count
        if byConnection[fd]?.isEmpty == true {
            byConnection[fd] = nil
            bytesByConnection[fd] = nil
        }
        return true
    }

    /// A new connection got descriptor `fd`: it starts with nothing held or refused.
    mutating func accepted(fd: Int32) {
        forget(fd: fd)
        states[fd] = .open
    }

    /// The hub shut connection `fd` down; it closes shortly.
    mutating func cutOff(fd: Int32) { states[fd] = .cutOff }

    /// The connection closed: ZeroMQ drops its subscriptions itself.
    mutating func disconnected(fd: Int32) {
        forget(fd: fd)
        states[fd] = .closed
    }

    private mutating func forget(fd: Int32) {
        if let held = byConnection.removeValue(forKey: fd) { total -= held.count }
        totalBytes -= bytesByConnection.removeValue(forKey: fd) ?? 0
        refusedByConnection[fd] = nil
    }

    func count(fd: Int32) -> Int { byConnection[fd]?.count ?? 0 }
}
