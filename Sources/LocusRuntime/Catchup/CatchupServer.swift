import Foundation
import LocusBus
import LocusCore
import LocusStore
import Logging

/// The catch-up socket (docs/protocol.md 13.2): a ROUTER that serves the journal page by page
/// to subscribers that were away, and the current state of every condition. It runs on a
/// thread of its own (its socket never leaves it) and also keeps the condition snapshot up to
/// date by reading the journal as it grows.
final class CatchupServer: @unchecked Sendable {
    let endpoints: [String]
    /// Endpoints bound with CURVE, and how.
    private let curve: [String: CurveServer]
    private let context: ZMQContext
    private let hub: Hub
    private let journal: EventJournal
    private let logger: Logger
    private let worker = SocketWorker(thread: "locus-catchup", for: "the catch-up server")
    private var stopFlag: StopFlag { worker.stopFlag }
    /// Guards `served`.
    private let lock = NSLock()
    private var served = CatchupStatistics()

    /// How long a first page waits for the hub to see the client's sync token.
    static let tokenTimeout = 5.0

    init(endpoints: [String], curve: [String: CurveServer] = [:], context: ZMQContext, hub: Hub, journal: EventJournal, logger: Logger) {
        self.endpoints = endpoints
        self.curve = curve
        self.context = context
        self.hub = hub
        self.journal = journal
        self.logger = logger
    }

    var statistics: CatchupStatistics { lock.withLock { served } }

    /// Binds every endpoint (throwing a `ZMQError` naming the one that failed) and starts serving.
    func start() throws {
        try worker.start { [self] startup in run(startup: startup) }
    }

    /// Stops serving within ~100 ms and closes the socket. Idempotent.
    func stop() { worker.stop() }

    private func run(startup: StartupResult) {
        let socket: ZMQSocket
        var ipcFiles: [String] = []
        do {
            socket = try ZMQSocket(context: context, type: .router)
            try socket.setOption(.linger(milliseconds: 0))
            try socket.setOption(.maxMessageSize(CatchupRequest.maxBytes))
            for endpoint in ZMQSocket.bindOrder(endpoints, curve: curve) {
                try socket.bind(endpoint, curve: curve[endpoint])
                if let path = try? Endpoint.validate(endpoint).ipcFilePath { ipcFiles.append(path) }
            }
        } catch {
            startup.report(error)
            return
        }
        startup.report(nil)
        let reader = JournalReader(directory: journal.directory)
        let snapshot = ConditionSnapshot(path: journal.directory + "/snapshot.jsonl")
        if snapshot.unreadableLines > 0 {
            logger.warning("the condition snapshot file had unreadable lines; they were left out", metadata: [
                "path": "\(snapshot.path)", "lines": "\(snapshot.unreadableLines)"])
        }
        var positions = PositionCache()
        do {
            while !stopFlag.isSet {
                followIfGrown(snapshot, reader)
                guard let frames = try socket.receiveMultipart(timeoutMilliseconds: 100) else { continue }
                try answer(frames, on: socket, reader: reader, snapshot: snapshot, positions: &positions)
            }
        } catch let error as ZMQError where error.isContextTerminated {
            logger.debug("catch-up server stopping: the ZeroMQ context was shut down")
        } catch {
            logger.error("catch-up server failed", metadata: ["error": "\(error)"])
        }
        snapshot.save()
        socket.close()
        for path in ipcFiles { IPCSocketFile.remove(path: path) }
    }

    /// A DEALER's request arrives as [id, request]; a REQ's as [id, "", request].
    private func answer(_ frames: [[UInt8]], on socket: ZMQSocket, reader: JournalReader, snapshot: ConditionSnapshot,
                        positions: inout PositionCache) throws {
        guard frames.count >= 2 else { return }
        let route = Array(frames.dropLast())
        let reply: [[UInt8]]
        switch CatchupRequest.parse(frames[frames.count - 1]) {
        case .failure(let error):
            lock.withLock { served.refused += 1 }
            reply = [Self.header(["type": "catchup.error", "version": 1, "error": error.description])]
        case .success(.snapshot(let topics)):
            followIfGrown(snapshot, reader)
            let events = snapshot.events(topics: topics)
            lock.withLock { served.snapshots += 1; served.events += UInt64(events.count) }
            reply = [pageHeader(events: events.count, end: true, next: nil, truncated: false)] + events.flatMap { [$0.topic, $0.body] }
        case .success(.page(let request)):
            reply = page(request, reader: reader, positions: &positions)
        }
        // A client that went away is dropped by ROUTER (nothing to count: it asked no more);
        // one whose queue is full is not waited for, and that reply is counted as unsent.
        if try !socket.send(route + reply, dontWait: true) { lock.withLock { served.unsent += 1 } }
    }

    /// The newest index the snapshot has read up to; it reads on only when the journal grew,
    /// so an idle daemon does not list and open the journal's files every 100 ms.
    private var snapshotNewest: UInt64?

    private func followIfGrown(_ snapshot: ConditionSnapshot, _ reader: JournalReader) {
        let newest = journal.statistics.newestIndex
        if newest == snapshotNewest && !snapshot.behind { snapshot.saveIfDue(); return }
        snapshot.follow(reader, newest: newest)
        snapshotNewest = newest
    }

    private func page(_ request: CatchupPageRequest, reader: JournalReader, positions: inout PositionCache) -> [[UInt8]] {
        let start: JournalPosition
        let pending: [String: CatchupCursor.Pending]
        if let cursor = request.cursor {
            start = positions.position(for: cursor.index) ?? JournalPosition(index: cursor.index)
            pending = cursor.pending
        } else {
            if let token = request.token, !hub.waitForSubscriber(token: "\u{0}" + token, timeout: Self.tokenTimeout) {
                lock.withLock { served.refused += 1 }
                return [Self.header(["type": "catchup.error", "version": 1,
                                     "error": "the hub did not see the subscription \\0\(token) within \(Int(Self.tokenTimeout)) s; subscribe to it on the publish socket first"])]
            }
            start = request.since.map { reader.position(since: $0) } ?? .oldest
            pending = request.after.mapValues { CatchupCursor.Pending(after: $0, last: 0) }
        }
        let page = CatchupScan.page(reader, request: request, start: start, pending: pending)
        positions.remember(page.next)
        lock.withLock {
            served.pages += 1
            served.events += UInt64(page.events.count)
            if page.truncated { served.truncated += 1 }
            served.damaged += UInt64(page.damaged)
        }
        return [pageHeader(events: page.events.count, end: page.end, next: page.end ? nil : page.cursor, truncated: page.truncated,
                           damaged: page.damaged)]
            + page.events.flatMap { [$0.topic, $0.body] }
    }

    private func pageHeader(events: Int, end: Bool, next: CatchupCursor?, truncated: Bool, damaged: Int = 0) -> [UInt8] {
        let extent = journal.statistics
        var o: [String: Any] = ["type": "catchup.page", "version": 1, "events": events, "end": end]
        if let next { o["next"] = next.json }
        if let oldest = extent.oldestIndex { o["oldest"] = Int(oldest) }
        if let newest = extent.newestIndex { o["newest"] = Int(newest) }
        if truncated { o["truncated"] = true }
        if damaged > 0 { o["damaged"] = damaged }
        return Self.header(o)
    }

    static func header(_ object: [String: Any]) -> [UInt8] {
        Array((try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data("{}".utf8))
    }
}

/// What the catch-up socket has served since the daemon started (`status`, metrics).
struct CatchupStatistics: Sendable, Equatable {
    var pages: UInt64 = 0
    var snapshots: UInt64 = 0
    var events: UInt64 = 0
    var refused: UInt64 = 0
    var truncated: UInt64 = 0
    /// Journal records lost to damage that pages would have served (their pages are truncated).
    var damaged: UInt64 = 0
    /// Replies not sent because the client's queue was full.
    var unsent: UInt64 = 0
}

/// Where recent pages ended, so the next page starts without scanning its segment again.
struct PositionCache {
    private var byIndex: [UInt64: JournalPosition] = [:]

    mutating func remember(_ p: JournalPosition) {
        if byIndex.count >= 1024 { byIndex.removeAll(keepingCapacity: true) }
        byIndex[p.index] = p
    }

    func position(for index: UInt64) -> JournalPosition? { byIndex[index] }
}
