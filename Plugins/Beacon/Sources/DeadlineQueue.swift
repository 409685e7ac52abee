import LocusConditions
import LocusCore

/// A min-heap of (time, condition id): when each active condition next needs a look (its exit
/// deadline, its next range). Entries are not removed when a deadline moves:
/// the monitor skips an entry that no longer matches what the condition has scheduled, and a
/// condition whose deadline moved later is simply looked at early and scheduled again. So an
/// advertisement costs no heap work, and a message with nothing due costs one comparison.
struct DeadlineQueue {
    private var heap: [(time: Int64, id: String)] = []

    var isEmpty: Bool { heap.isEmpty }
    var count: Int { heap.count }

    /// The earliest entry, if it is due at `time`.
    func peek(dueAt time: EventTime) -> (time: EventTime, id: String)? {
        guard let top = heap.first, top.time <= time.milliseconds else { return nil }
        return (EventTime(milliseconds: top.time), top.id)
    }

    mutating func push(_ time: EventTime, _ id: String) {
        heap.append((time.milliseconds, id))
        var i = heap.count - 1
        while i > 0 {
            let parent = (i - 1) / 2
            guard Self.less(heap[i], heap[parent]) else { break }
            heap.swapAt(i, parent)
            i = parent
        }
    }

    mutating func pop() {
        guard !heap.isEmpty else { return }
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        var i = 0
        while true {
            let l = 2 * i + 1, r = l + 1
            var m = i
            if l < heap.count, Self.less(heap[l], heap[m]) { m = l }
            if r < heap.count, Self.less(heap[r], heap[m]) { m = r }
            guard m != i else { return }
            heap.swapAt(i, m)
            i = m
        }
    }

    /// Time first, then id: the order events of one message come out in is deterministic.
    private static func less(_ a: (time: Int64, id: String), _ b: (time: Int64, id: String)) -> Bool {
        a.time != b.time ? a.time < b.time : a.id < b.id
    }
}
