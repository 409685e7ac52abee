import LocusFormats
import NIOCore

/// Who gets a place when a client connects (issue 49 item 1). Watchers that never read used to
/// hold every place: the kernel took their reports (megabytes per socket on loopback), so no
/// bound fired and every newcomer was told `Too many clients`. Now the kernel's share is small
/// (`GpsdServerSink.sendBufferBytes`), so a non-reader is soon seen stalled; a newcomer to a
/// full server (or a full address) takes the place of the longest-stalled client, else of the
/// watcher that left the most unread at its end (`GpsdPeerBacklog`), else of the longest quiet
/// one, else of the oldest watcher that has not yet shown it reads (`GpsdPeerBacklog.proven`),
/// and is refused only when every client is alive and has shown it reads.
///
/// The last rule is a policy, not a measurement: for its first ~100 KB (minutes at a
/// receiver's rate) a non-reader's kernel takes every report and advertises the same window as
/// a reader's, so nothing tells them apart. Taking the oldest unproven watcher lets a newcomer
/// in at once while a flood holds every place (the flood's connections are older than any real
/// client that comes after it), and a client that reads is safe from the rule once it has
/// taken more than its kernel could hold (some 300 KB on loopback: about ten minutes at 1 Hz).
extension GpsdServerState {
    /// A client that has accepted no byte for this long while bytes wait for it may be evicted
    /// (or for write_timeout, when that is shorter). A reading client accepts a report at once.
    static let stallGrace = TimeAmount.seconds(1)
    /// A client that has neither accepted a byte nor sent a request for this long may be
    /// evicted (it watches a device that sends nothing, or it connected and said nothing): longer
    /// than any receiver's report interval, so a watcher of a live device never is.
    static let quietGrace = TimeAmount.seconds(10)

    /// Makes room for a connection from `address`, evicting a client if need be; false (the
    /// channel answered with an ERROR and closed, and counted) when there is no room.
    func admit(_ channel: Channel, from address: String, now: NIODeadline) -> Bool {
        let fromAddress = clientsByAddress[address] ?? 0
        if fromAddress >= configuration.maxClientsPerAddress {
            guard let victim = evictable(now: now, where: { $0.address == address }) else {
                refuse(channel, "Too many clients from \(address): \(fromAddress) are connected (max_clients_per_address)",
                       counting: \.clientsRefusedPerAddress)
                return false
            }
            close(victim, counting: \.clientsEvicted)
        } else if clients.count >= configuration.maxClients {
            guard let victim = evictable(now: now, where: { _ in true }) else {
                refuse(channel, "Too many clients: \(configuration.maxClients) are connected (max_clients)", counting: \.clientsRefused)
                return false
            }
            close(victim, counting: \.clientsEvicted)
        }
        return true
    }

    /// The client to evict among those `included`: the one stalled longest (past `stallGrace`),
    /// else the watcher that left the most unread at its end (past
    /// `GpsdPeerBacklog.evictableBytes`: before a non-reader's receive buffer is full nothing
    /// waits in Locus for it), else the one quiet longest (past `quietGrace`), else the oldest
    /// watcher not `proven` a reader (connected for `stallGrace` at least, so a burst of
    /// newcomers does not evict each other); nil when every one is alive and has shown it reads.
    func evictable(now: NIODeadline, where included: (GpsdClient) -> Bool) -> GpsdClient? {
        let write = TimeAmount.nanoseconds(Int64(configuration.writeTimeout * 1e9))
        let stall = min(Self.stallGrace, write)
        var stalled: GpsdClient?, behind: GpsdClient?, quiet: GpsdClient?, unproven: GpsdClient?
        for client in clients.values where !client.closing && included(client) {
            if client.watch.enable { client.backlog.sample(client.channel) }
            if let since = client.stalledSince {
                if now - since >= stall, since < stalled?.stalledSince ?? .distantFuture { stalled = client }
            } else if client.watch.enable, client.backlog.unread > GpsdPeerBacklog.evictableBytes,
                      client.backlog.unread > behind?.backlog.unread ?? 0 {
                behind = client
            } else if now - client.lastActive >= Self.quietGrace, client.lastActive < quiet?.lastActive ?? .distantFuture {
                quiet = client
            } else if client.watch.enable, !client.backlog.proven, now - client.connectedAt >= Self.stallGrace,
                      client.connectedAt < unproven?.connectedAt ?? .distantFuture {
                unproven = client
            }
        }
        return stalled ?? behind ?? quiet ?? unproven
    }

    private func refuse(_ channel: Channel, _ message: String, counting reason: WritableKeyPath<GpsdServerCounters, Int>) {
        statistics.update { $0[keyPath: reason] += 1 }
        let refusal = GpsdReportWriter.error(message)
        channel.writeAndFlush(channel.allocator.buffer(bytes: refusal)).whenComplete { _ in channel.close(promise: nil) }
    }
}
