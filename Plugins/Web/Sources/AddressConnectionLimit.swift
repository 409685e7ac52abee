import Foundation
import LocusCore
import NIOCore

/// Connections open now per client address (the IP, without the port), shared by every
/// connection of one server: one host cannot hold all of `max_clients` or of the process's
/// file descriptors. Used from the event loops of many connections, hence the lock; the lock
/// guards `open`.
final class AddressConnectionTable: @unchecked Sendable {
    let limit: Int
    /// Guards `open`.
    private let lock = NSLock()
    private var open: [String: Int] = [:]

    init(limit: Int) { self.limit = limit }

    /// Counts one more connection from `address`, or returns false when it has `limit` open.
    func acquire(_ address: String) -> Bool {
        lock.withLock {
            let n = open[address, default: 0]
            guard n < limit else { return false }
            open[address] = n + 1
            return true
        }
    }

    func release(_ address: String) {
        lock.withLock {
            let n = open[address, default: 0] - 1
            open[address] = n > 0 ? n : nil
        }
    }

    /// Connections open from `address` (tests).
    func count(_ address: String) -> Int { lock.withLock { open[address, default: 0] } }
}

/// First in each connection's pipeline: takes the connection's place in its address's count
/// when it becomes active, gives it back when it closes, and refuses (503, counted as
/// `connections_refused`) a connection over the limit before anything reads its request.
final class AddressLimitHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    private let table: AddressConnectionTable
    private let counters: SourceCounters<WebCounters>
    private let linger: TimeAmount
    /// The address whose count this connection holds.
    private var held: String?
    private var checked = false

    init(table: AddressConnectionTable, counters: SourceCounters<WebCounters>, linger: TimeAmount) {
        self.table = table
        self.counters = counters
        self.linger = linger
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { check(context: context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        check(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if let held { table.release(held) }
        held = nil
        context.fireChannelInactive()
    }

    private func check(context: ChannelHandlerContext) {
        guard !checked else { return }
        checked = true
        // A Unix socket or an unknown peer has no address to count.
        guard let address = context.channel.remoteAddress?.ipAddress else { return }
        if table.acquire(address) {
            held = address
            return
        }
        counters.update { $0.connectionsRefused += 1 }
        let refusal = LingeringRefusal(
            response: LingeringRefusal.response("503 Service Unavailable",
                                                "too many connections from \(address) (max_connections_per_address \(table.limit))"),
            linger: linger)
        do {
            try context.pipeline.syncOperations.addHandler(refusal, position: .first)
        } catch {
            context.close(promise: nil)
        }
    }
}
