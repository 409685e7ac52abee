/// Finds two non-neighbouring edges of a closed ring that cross or touch, by a Shamos–Hoey
/// sweep (Shamos & Hoey 1976; as in Dan Sunday's "Simple polygon test"): edges enter an ordered
/// status at their left endpoint and leave at their right one, and only edges that become
/// neighbours in it are tested. The leftmost intersection is always found, because the two
/// edges meeting there are neighbours just before the sweep reaches it.
///
/// Cost: O(n log n) to sort the endpoints and place each edge (binary search), plus O(a) per
/// edge to shift the status, where a is the number of edges one vertical line crosses — a
/// handful for real fences, so a 30,000-vertex ring takes milliseconds instead of the 450 M
/// pair tests of checking every pair.
enum RingSweep {
    struct Edge {
        var left: PlanePoint
        var right: PlanePoint
    }

    /// The first pair of edges found crossing or touching (neighbouring edges excepted: they
    /// share a vertex), lower edge number first; nil when the ring is simple. `v` is closed
    /// (`v.first == v.last`) with no repeated consecutive positions.
    static func crossing(_ v: [PlanePoint]) -> (Int, Int)? {
        let n = v.count - 1
        guard n >= 4 else { return nil } // a triangle has no edges that are not neighbours
        let edges: [Edge] = (0 ..< n).map { k in
            let a = v[k], b = v[k + 1]
            return precedes(a, b) ? Edge(left: a, right: b) : Edge(left: b, right: a)
        }
        // Each edge's two events, sorted by point; at one point, entries before exits, so edges
        // that only touch there are in the status together.
        var events: [Int32] = [] // edge << 1 | 0 for entering, | 1 for leaving
        events.reserveCapacity(2 * n)
        for k in 0 ..< n { events.append(Int32(k << 1)); events.append(Int32(k << 1 | 1)) }
        func point(_ e: Int32) -> PlanePoint { e & 1 == 0 ? edges[Int(e >> 1)].left : edges[Int(e >> 1)].right }
        events.sort { a, b in
            let p = point(a), q = point(b)
            if p.x != q.x { return p.x < q.x }
            if p.y != q.y { return p.y < q.y }
            return (a & 1) < (b & 1)
        }
        func neighbours(_ i: Int, _ j: Int) -> Bool {
            let d = abs(i - j)
            return d == 1 || d == n - 1
        }
        func meet(_ i: Int, _ j: Int) -> (Int, Int)? {
            guard !neighbours(i, j) else { return nil }
            let a = edges[i], b = edges[j]
            return SegmentIntersection.intersects(a.left, a.right, b.left, b.right) ? (min(i, j), max(i, j)) : nil
        }
        // Whether edge s, entering at its left endpoint, goes below edge t of the status.
        func below(_ s: Int, _ t: Int) -> Bool {
            let e = edges[t]
            let o = SegmentIntersection.orientation(e.left, e.right, edges[s].left)
            if o != 0 { return o < 0 }
            let o2 = SegmentIntersection.orientation(e.left, e.right, edges[s].right)
            if o2 != 0 { return o2 < 0 }
            return s < t
        }
        var status: [Int] = [] // edges crossing the sweep line, bottom to top
        for event in events {
            let k = Int(event >> 1)
            if event & 1 == 0 {
                var lo = 0, hi = status.count
                while lo < hi {
                    let mid = (lo + hi) >> 1
                    if below(k, status[mid]) { hi = mid } else { lo = mid + 1 }
                }
                status.insert(k, at: lo)
                if lo > 0, let found = meet(status[lo - 1], k) { return found }
                if lo + 1 < status.count, let found = meet(k, status[lo + 1]) { return found }
            } else {
                guard let at = status.firstIndex(of: k) else { continue }
                status.remove(at: at)
                if at > 0, at < status.count, let found = meet(status[at - 1], status[at]) { return found }
            }
        }
        return nil
    }

    /// Lexicographic order of points: by x, then y (a vertical edge's left end is its lower one).
    @inline(__always) static func precedes(_ a: PlanePoint, _ b: PlanePoint) -> Bool {
        a.x < b.x || (a.x == b.x && a.y < b.y)
    }
}
