import LocusCore

extension PolygonRegion {
    /// Validates and stores polygons.
    ///
    /// - Parameter polygons: Each polygon is a list of rings, the outer ring first, then its
    ///   holes; each ring a list of positions whose first and last are equal (RFC 7946
    ///   §3.1.6). Either winding order is accepted (RFC 7946 says parsers should not reject
    ///   the other one).
    /// - Throws: `RegionGeometryError` naming the ring (`ring 0` is the outer ring, `ring 1`
    ///   the first hole; with several polygons, `polygon 1 ring 0`) and the reason:
    ///   fewer than 4 positions, not closed, a latitude outside [-90, 90] or beyond
    ///   ±`maximumAbsoluteLatitude`, a ring winding around a pole, two edges of a ring that
    ///   cross or touch, a hole not inside its outer ring or touching it, holes touching
    ///   each other. Repeated consecutive positions are dropped first, so edge numbers in
    ///   reasons count edges between distinct positions.
    ///
    /// Cost: self-intersection is checked by a sweep (`RingSweep`), O(n log n) in the ring's
    /// vertex count for real fences: milliseconds for a 30,000-vertex ring. Not checked: a hole inside another hole,
    /// overlapping polygons of a MultiPolygon (both make `contains` follow even-odd / any-of
    /// rules rather than fail).
    public init(polygons input: [[[Coordinate]]]) throws {
        try self.init(polygons: input, checkingSimplicity: true)
    }

    /// As `init(polygons:)` but without the self-intersection check of each ring, for
    /// benchmarks that must load another tool's data set as it is (geofence_bench.py's star
    /// polygons include some shapely itself reports as self-intersecting). Containment of a
    /// self-intersecting ring follows the even-odd rule, as shapely's point-in-polygon test
    /// does; `signedDistance` stays the distance to the nearest edge. Not for regions users
    /// define: such a ring has no agreed inside.
    /// - Throws: `RegionGeometryError` for every other reason `init(polygons:)` gives.
    @_spi(Benchmarks)
    public init(selfIntersectingPolygons input: [[[Coordinate]]]) throws {
        try self.init(polygons: input, checkingSimplicity: false)
    }

    init(polygons input: [[[Coordinate]]], checkingSimplicity: Bool) throws {
        var vertices: [PlanePoint] = []
        var rings: [Ring] = []
        var polygons: [Polygon] = []
        guard !input.isEmpty else { throw RegionGeometryError(.tooFewPositions, "a polygon region needs at least one polygon") }
        for (p, polygon) in input.enumerated() {
            let name = { (r: Int) in input.count > 1 ? "polygon \(p) ring \(r)" : "ring \(r)" }
            guard !polygon.isEmpty else { throw RegionGeometryError(.tooFewPositions, "polygon \(p) has no rings") }
            let ringStart = rings.count
            var outerCentre = 0.0
            for (r, positions) in polygon.enumerated() {
                var unwrapped = try Self.unwrappedRing(positions, name: name(r))
                var ring = Self.ring(unwrapped, start: vertices.count)
                if r == 0 {
                    outerCentre = (ring.minX + ring.maxX) / 2
                } else {
                    // Put the hole in the outer ring's 360° frame.
                    let shift = 360 * (((ring.minX + ring.maxX) / 2 - outerCentre) / 360).rounded()
                    if shift != 0 {
                        for i in unwrapped.indices { unwrapped[i].x -= shift }
                        ring = Self.ring(unwrapped, start: vertices.count)
                    }
                }
                if checkingSimplicity { try Self.checkSimple(unwrapped, name: name(r)) }
                vertices.append(contentsOf: unwrapped)
                rings.append(ring)
            }
            let outer = rings[ringStart]
            polygons.append(Polygon(ringStart: ringStart, ringEnd: rings.count,
                                    minX: outer.minX, maxX: outer.maxX, minY: outer.minY, maxY: outer.maxY))
            try Self.checkHoles(vertices: vertices, rings: rings[ringStart...], polygon: polygons[polygons.count - 1], name: name)
        }
        self.init(vertices: vertices, rings: rings, polygons: polygons)
    }

    /// The ring's positions as plane points with longitudes unwrapped, after the checks that
    /// need only the positions.
    static func unwrappedRing(_ positions: [Coordinate], name: String) throws -> [PlanePoint] {
        guard positions.count >= 4 else {
            throw RegionGeometryError(.tooFewPositions, "\(name) has \(positions.count) positions; a ring needs at least 4 (a closed triangle)")
        }
        for (i, c) in positions.enumerated() {
            guard c.isValid, c.latitude.isFinite else {
                throw RegionGeometryError(.invalidPosition, "\(name) position \(i): latitude \(c.latitude), longitude \(c.longitude) is not a valid position (latitude must be in [-90, 90])")
            }
            guard abs(c.latitude) <= maximumAbsoluteLatitude else {
                throw RegionGeometryError(.tooCloseToPole, "\(name) position \(i): latitude \(c.latitude) is beyond ±\(maximumAbsoluteLatitude)°, too close to a pole for lon/lat polygons; use a circle there")
            }
        }
        guard let first = positions.first, let last = positions.last,
              first.latitude == last.latitude,
              normalizedLongitude(first.longitude) == normalizedLongitude(last.longitude) else {
            throw RegionGeometryError(.ringNotClosed, "\(name) is not closed: its first position must equal its last")
        }
        // Unwrap: each step takes the shorter way round, so 179 → -179 is +2°, not -358°.
        var points = [PlanePoint(x: normalizedLongitude(first.longitude), y: first.latitude)]
        points.reserveCapacity(positions.count)
        for c in positions.dropFirst() {
            let previous = points[points.count - 1].x
            // Add whole turns only, so a longitude needing none keeps its exact value.
            let x = normalizedLongitude(c.longitude)
            let point = PlanePoint(x: x + 360 * ((previous - x) / 360).rounded(), y: c.latitude)
            // Repeated consecutive positions are legal GeoJSON (shapely accepts them); drop them,
            // or the zero-length edge would "touch" both its neighbours' neighbours.
            if point != points[points.count - 1] { points.append(point) }
        }
        guard points.count >= 4 else {
            throw RegionGeometryError(.tooFewPositions, "\(name) has \(points.count) distinct positions (counting the closing one); a ring needs at least 4 (a closed triangle)")
        }
        // A ring that goes once round the globe comes back 360° off: it encloses a pole.
        let xs = points.map(\.x)
        if abs(points[points.count - 1].x - points[0].x) > 180 || (xs.max()! - xs.min()!) >= 360 {
            throw RegionGeometryError(.enclosesPole, "\(name) winds around a pole (its longitudes go once round the globe); polygons containing a pole are not supported, use a circle")
        }
        points[points.count - 1] = points[0]  // exactly closed, whatever the input's longitude frame
        return points
    }

    static func ring(_ points: [PlanePoint], start: Int) -> Ring {
        var ring = Ring(start: start, end: start + points.count, minX: .infinity, maxX: -.infinity, minY: .infinity, maxY: -.infinity)
        for p in points {
            ring.minX = min(ring.minX, p.x); ring.maxX = max(ring.maxX, p.x)
            ring.minY = min(ring.minY, p.y); ring.maxY = max(ring.maxY, p.y)
        }
        return ring
    }

    /// Rejects a ring with two edges that cross or touch (neighbouring edges may share only
    /// their common vertex): neighbours are checked for folding back in O(n), every other pair by
    /// `RingSweep` in O(n log n).
    static func checkSimple(_ v: [PlanePoint], name: String) throws {
        let edges = v.count - 1
        for j in 1 ... edges {
            // Edges i and j share a vertex; they are bad only if they fold back over each other.
            let i = j - 1
            guard j < edges || edges > 2 else { break }
            let (first, second) = j < edges ? (i, j) : (0, edges - 1)
            let (shared, a, b) = j < edges ? (v[j], v[i], v[j + 1]) : (v[0], v[1], v[edges - 1])
            if SegmentIntersection.orientation(a, shared, b) == 0,
               (a.x - shared.x) * (b.x - shared.x) + (a.y - shared.y) * (b.y - shared.y) > 0 {
                throw RegionGeometryError(.selfIntersection, "\(name) edges \(first) and \(second) overlap (the ring doubles back on itself)")
            }
        }
        if let (i, j) = RingSweep.crossing(v) {
            throw RegionGeometryError(.selfIntersection, "\(name) is self-intersecting: edges \(i) and \(j) cross or touch")
        }
    }

    /// The check of every pair of edges, O(n²): what `checkSimple` must agree with (tests).
    static func checkSimpleByPairs(_ v: [PlanePoint]) -> Bool {
        let edges = v.count - 1
        for i in 0 ..< edges {
            for j in i + 1 ..< edges {
                let adjacent = j == i + 1 || (i == 0 && j == edges - 1)
                if adjacent {
                    let (shared, a, b) = j == i + 1 ? (v[j], v[i], v[j + 1]) : (v[i], v[i + 1], v[j])
                    if SegmentIntersection.orientation(a, shared, b) == 0,
                       (a.x - shared.x) * (b.x - shared.x) + (a.y - shared.y) * (b.y - shared.y) > 0 { return false }
                    continue
                }
                if SegmentIntersection.intersects(v[i], v[i + 1], v[j], v[j + 1]) { return false }
            }
        }
        return true
    }

    /// Holes must lie inside the outer ring without touching it or each other.
    static func checkHoles(vertices: [PlanePoint], rings: ArraySlice<Ring>, polygon: Polygon, name: (Int) -> String) throws {
        let outer = rings[rings.startIndex]
        let probe = PolygonRegion(vertices: vertices, rings: [outer], polygons: [polygon])
        let holes = Array(rings.dropFirst())
        for (h, hole) in holes.enumerated() {
            for k in hole.start ..< hole.end - 1 {
                for m in outer.start ..< outer.end - 1 where
                    SegmentIntersection.intersects(vertices[k], vertices[k + 1], vertices[m], vertices[m + 1]) {
                    throw RegionGeometryError(.holeIntersectsOuterRing, "\(name(h + 1)) (a hole) crosses or touches the outer ring")
                }
            }
            // No crossings, so one vertex decides: the whole hole is inside or outside.
            let v = vertices[hole.start]
            if case .even = probe.crossingParity(of: v, ring: outer) {
                throw RegionGeometryError(.holeOutsideOuterRing, "\(name(h + 1)) (a hole) lies outside the outer ring")
            }
            for (g, other) in holes.enumerated() where g > h {
                for k in hole.start ..< hole.end - 1 {
                    for m in other.start ..< other.end - 1 where
                        SegmentIntersection.intersects(vertices[k], vertices[k + 1], vertices[m], vertices[m + 1]) {
                        throw RegionGeometryError(.holesIntersect, "holes \(name(h + 1)) and \(name(g + 1)) cross or touch")
                    }
                }
            }
        }
    }
}
