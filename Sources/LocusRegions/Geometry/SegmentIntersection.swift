/// A point in the lon/lat plane (x = longitude, y = latitude, degrees), the space in which
/// polygon edges are straight lines (RFC 7946 §3.1.1, as shapely and PostGIS geometry do).
struct PlanePoint: Sendable, Equatable {
    var x: Double
    var y: Double
}

enum SegmentIntersection {
    /// Twice the signed area of (a, b, c): > 0 when c is left of a→b, 0 when collinear.
    static func orientation(_ a: PlanePoint, _ b: PlanePoint, _ c: PlanePoint) -> Double {
        (b.x - a.x) * (c.y - a.y) - (b.y - a.y) * (c.x - a.x)
    }

    /// Whether collinear point `p` lies within the bounding box of segment a–b.
    static func withinBox(_ a: PlanePoint, _ b: PlanePoint, _ p: PlanePoint) -> Bool {
        p.x >= min(a.x, b.x) && p.x <= max(a.x, b.x) && p.y >= min(a.y, b.y) && p.y <= max(a.y, b.y)
    }

    /// Whether closed segments p1–p2 and q1–q2 share at least one point (touching counts).
    ///
    /// Exact orientation signs are used, so a vertex lying exactly on another edge counts as
    /// an intersection; validation wants that (a ring touching itself is not simple).
    static func intersects(_ p1: PlanePoint, _ p2: PlanePoint, _ q1: PlanePoint, _ q2: PlanePoint) -> Bool {
        // Cheap reject first: most edge pairs of a ring are far apart.
        if max(p1.x, p2.x) < min(q1.x, q2.x) || max(q1.x, q2.x) < min(p1.x, p2.x)
            || max(p1.y, p2.y) < min(q1.y, q2.y) || max(q1.y, q2.y) < min(p1.y, p2.y) { return false }
        let d1 = orientation(q1, q2, p1), d2 = orientation(q1, q2, p2)
        let d3 = orientation(p1, p2, q1), d4 = orientation(p1, p2, q2)
        if ((d1 > 0 && d2 < 0) || (d1 < 0 && d2 > 0)) && ((d3 > 0 && d4 < 0) || (d3 < 0 && d4 > 0)) { return true }
        if d1 == 0 && withinBox(q1, q2, p1) { return true }
        if d2 == 0 && withinBox(q1, q2, p2) { return true }
        if d3 == 0 && withinBox(p1, p2, q1) { return true }
        if d4 == 0 && withinBox(p1, p2, q2) { return true }
        return false
    }
}
