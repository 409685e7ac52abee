/// Messages handed to libmosquitto and not yet acknowledged by the broker, and from them the
/// journal position below which everything is delivered: the position the sink saves, so a
/// restart sends again only what may not have arrived.
///
/// Journal records are sent in index order; records the sink does not forward (other topics)
/// count as delivered as soon as they are read. Messages from the live queue (topics the
/// journal does not take) have no index and never hold the position back.
struct DeliveryWindow {
    private struct Entry {
        var index: UInt64?
        var acknowledged = false
    }

    private var byMid: [Int32: Int] = [:]      // mid → slot in `entries`
    private var entries: [Entry] = []
    private var head = 0                        // first slot still awaiting
    /// The next journal index the reader will visit.
    private(set) var readNext: UInt64

    init(readNext: UInt64) { self.readNext = readNext }

    /// Messages sent and not yet acknowledged.
    var inFlight: Int { byMid.count }

    /// Every journal index below this is delivered (or not to be forwarded).
    var deliveredThrough: UInt64 {
        var k = head
        while k < entries.count {
            if !entries[k].acknowledged, let index = entries[k].index { return index }
            k += 1
        }
        return readNext
    }

    /// A message went to libmosquitto as `mid`; `index` is its journal record, nil for a live one.
    mutating func sent(mid: Int32, index: UInt64?) {
        byMid[mid] = entries.count
        entries.append(Entry(index: index))
        if let index { readNext = max(readNext, index + 1) }
    }

    /// The reader moved past `index` without sending it (another topic, too large).
    mutating func passed(_ index: UInt64) { readNext = max(readNext, index + 1) }

    /// The reader continues at `index` (the journal's retention deleted what came before).
    mutating func jump(to index: UInt64) { readNext = max(readNext, index) }

    /// The broker acknowledged `mid`. Unknown ids (a message of an earlier connection already
    /// settled) change nothing.
    /// - Returns: true if `mid` was awaited.
    @discardableResult
    mutating func acknowledge(mid: Int32) -> Bool {
        guard let slot = byMid.removeValue(forKey: mid) else { return false }
        entries[slot].acknowledged = true
        while head < entries.count, entries[head].acknowledged { head += 1 }
        if head == entries.count {
            entries.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 4096 {
            entries.removeFirst(head)
            for (m, s) in byMid { byMid[m] = s - head }
            head = 0
        }
        return true
    }
}
