import LocusCore

/// One page of a catch-up (docs/protocol.md 13.2): reads the journal from a position and picks
/// the records the request wants. Pure apart from reading the journal, so it is tested alone.
public enum CatchupScan {
    /// Most records looked at for one page, so a request far behind does not hold the socket
    /// for long: a page may come back with fewer events (even none) and `end: false`.
    static let scanBudget = 200_000
    /// Most event bytes in one page.
    static let byteBudget = 16 << 20

    public struct Page {
        public var events: [(topic: [UInt8], body: [UInt8])] = []
        /// Where the next page starts (the `next` handed out, with its position hint).
        public var next: JournalPosition
        public var cursor: CatchupCursor
        public var end: Bool
        /// True if records the request may want are gone: deleted by retention, or lost to damage.
        public var truncated: Bool
        /// Records lost to damage in the part of the journal this page read.
        public var damaged: Int
    }

    /// `start` is where to read; `cursor` carries the producers not yet passed (`request.after`
    /// on a first page).
    public static func page(_ reader: JournalReader, request: CatchupPageRequest, start: JournalPosition,
                     pending startPending: [String: CatchupCursor.Pending]) -> Page {
        let topics = request.topics.map { Array($0.utf8) }
        var pending = startPending
        var events: [(topic: [UInt8], body: [UInt8])] = []
        var bytes = 0
        var scanned = 0
        var truncated = false
        let outcome = reader.read(from: start) { entry in
            if events.count >= request.limit || bytes >= byteBudget || scanned >= scanBudget { return false }
            // Records before `since` are skipped without counting against the budget, so a page
            // never ends among them (the next page's request need not repeat `since`).
            if let since = request.since, entry.appendedMs < since { return true }
            scanned += 1
            let wanted = topics.isEmpty || topics.contains { Topic.hasPrefix(entry.topic, $0) }
            // A producer's position is followed on every topic it published, wanted or not: its
            // sequence numbers run across all of them.
            if !pending.isEmpty, let origin = EnvelopeOrigin.read(entry.body), let p = pending[origin.producer] {
                if origin.seq > p.after {
                    // Past the subscriber's position. Nothing of this producer at or below it
                    // was seen in the scan, and the next number is not the one after it: those
                    // records are gone (retention).
                    if p.last == 0, origin.seq > p.after + 1 { truncated = true }
                    pending[origin.producer] = nil
                } else if origin.seq == p.after {
                    pending[origin.producer] = nil // the last one it saw: skip it, serve the rest
                    return true
                } else if p.last > 0, origin.seq < p.last {
                    pending[origin.producer] = nil // restarted since: serve from here
                } else {
                    pending[origin.producer]?.last = origin.seq
                    return true
                }
            }
            guard wanted else { return true }
            events.append((Array(entry.topic), Array(entry.body)))
            bytes += entry.topic.count + entry.body.count
            return true
        }
        return Page(events: events, next: outcome.next,
                    cursor: CatchupCursor(index: outcome.next.index, pending: pending),
                    end: outcome.reachedEnd, truncated: truncated || outcome.truncated || outcome.damaged > 0,
                    damaged: outcome.damaged)
    }
}
