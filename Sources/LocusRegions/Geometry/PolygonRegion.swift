import LocusCore

/// One or more validated polygons with holes (a GeoJSON Polygon or MultiPolygon), stored flat
/// for fast point queries.
///
/// Edges are straight lines in the longitude/latitude plane, as RFC 7946 §3.1.1 prescribes and
/// as shapely and PostGIS `geometry` treat them — not great-circle arcs. So a region drawn in
/// any GeoJSON tool contains exactly the points the tool shows inside it. (A long east–west
/// edge therefore follows a parallel, not the shorter great circle.)
///
/// Rings crossing the antimeridian are accepted: each ring is unwrapped so that consecutive
/// longitudes never jump by more than 180°, i.e. the edge from 179° to -179° is the 2° edge
/// across the antimeridian, not the 358° one around the globe. Rings that wind around a pole
/// and vertices beyond ±`maximumAbsoluteLatitude` are rejected (see `init(polygons:)`).
///
/// Build one with `PolygonRegion(polygons:)`, which validates.
public struct PolygonRegion: Sendable, Equatable {
    /// Vertices beyond this latitude (degrees) are rejected: there, straight lon/lat edges
    /// are far from any path on the ground and the local projection used for distances
    /// degrades. Use a circle for a region at a pole.
    public static let maximumAbsoluteLatitude: Double = 85

    /// One ring's vertices in `vertices[start ..< end]`, closing vertex included, so its
    /// edges are (vertices[i], vertices[i + 1]) for i in start ..< end - 1.
    struct Ring: Sendable, Equatable {
        var start: Int
        var end: Int
        var minX, maxX, minY, maxY: Double
    }

    /// One polygon: `rings[ringStart ..< ringEnd]`, the outer ring first.
    struct Polygon: Sendable, Equatable {
        var ringStart: Int
        var ringEnd: Int
        var minX, maxX, minY, maxY: Double
    }

    /// All vertices of all rings, longitudes unwrapped (may leave [-180, 180) near the antimeridian).
    let vertices: [PlanePoint]
    let rings: [Ring]
    let polygons: [Polygon]

    /// The bounding box of all polygons; longitudes normalised as `GeoBox` requires.
    public let boundingBox: GeoBox

    /// Number of polygons (1 for a GeoJSON Polygon).
    public var polygonCount: Int { polygons.count }

    init(vertices: [PlanePoint], rings: [Ring], polygons: [Polygon]) {
        self.vertices = vertices
        self.rings = rings
        self.polygons = polygons
        self.boundingBox = Self.box(of: polygons)
    }

    /// Whether `c` lies in a polygon: inside its outer ring and not inside one of its holes.
    ///
    /// Points exactly on an edge or a vertex (in lon/lat, to the last bit) count as inside,
    /// the outer ring's and the holes' alike: the region is a closed set (like shapely's
    /// `covers`, not `contains`), so that `contains` is true exactly where `signedDistance`
    /// is ≤ 0, and a point on a shared vertex of two regions is in both.
    /// No allocation; O(edges of the polygons whose box contains `c`).
    public func contains(_ c: Coordinate) -> Bool {
        location(of: c) != .outside
    }

    enum Location { case inside, outside, boundary }

    /// Where `c` is: the one place containment is decided, shared by `contains`,
    /// `signedDistance` and `RegionShapeIndex` (through `PackedPolygonRegion`) so that they
    /// agree exactly, on the boundary too.
    @inline(__always)
    func location(of c: Coordinate) -> Location {
        polygons.withUnsafeBufferPointer { polygons in
            rings.withUnsafeBufferPointer { rings in
                vertices.withUnsafeBufferPointer { vertices in
                    Self.location(of: c, polygons: polygons, rings: rings, vertices: vertices)
                }
            }
        }
    }

    /// `location(of:)` over storage laid out as the stored properties are: `polygons` index
    /// `rings`, which index `vertices`.
    @inline(__always)
    static func location(of c: Coordinate, polygons: UnsafeBufferPointer<Polygon>, rings: UnsafeBufferPointer<Ring>,
                         vertices: UnsafeBufferPointer<PlanePoint>) -> Location {
        for polygon in polygons {
            guard let x = Self.longitude(c.longitude, inRange: polygon.minX, polygon.maxX),
                  c.latitude >= polygon.minY, c.latitude <= polygon.maxY else { continue }
            let p = PlanePoint(x: x, y: c.latitude)
            var inside = false
            for r in polygon.ringStart ..< polygon.ringEnd {
                let ring = rings[r]
                // A ring whose box misses the point has no crossings to the right of it that
                // matter: even-odd parity over the other rings is unaffected.
                guard p.y >= ring.minY, p.y <= ring.maxY, p.x <= ring.maxX else { continue }
                switch crossingParity(of: p, ring: ring, vertices: vertices) {
                case .onBoundary: return .boundary
                case .odd: inside.toggle()
                case .even: break
                }
            }
            if inside { return .inside }
        }
        return .outside
    }

    enum Parity { case even, odd, onBoundary }

    func crossingParity(of p: PlanePoint, ring: Ring) -> Parity {
        vertices.withUnsafeBufferPointer { Self.crossingParity(of: p, ring: ring, vertices: $0) }
    }

    /// Even-odd ray casting towards +x, with an exact on-edge test.
    ///
    /// Edges are counted when they straddle the horizontal line through `p` half-open
    /// (one end strictly above), so a ray through a vertex is counted once.
    @inline(__always)
    static func crossingParity(of p: PlanePoint, ring: Ring, vertices v: UnsafeBufferPointer<PlanePoint>) -> Parity {
        var odd = false
        var a = v[ring.start]
        for i in ring.start + 1 ..< ring.end {
            let b = v[i]
            if a.x == p.x && a.y == p.y { return .onBoundary }
            if (a.y > p.y) != (b.y > p.y) {
                // Sign of the cross product: which side of a→b the point is on.
                let cross = (b.x - a.x) * (p.y - a.y) - (p.x - a.x) * (b.y - a.y)
                if cross == 0 { return .onBoundary }
                // The crossing lies to the right of p when p is left of an upward edge
                // or right of a downward one.
                if (cross > 0) == (b.y > a.y) { odd.toggle() }
            } else if a.y == p.y && b.y == p.y && p.x >= min(a.x, b.x) && p.x <= max(a.x, b.x) {
                return .onBoundary  // on a horizontal edge
            }
            a = b
        }
        return odd ? .odd : .even
    }

    /// `longitude` shifted by a multiple of 360° into [minX, maxX], or nil when no shift lands
    /// there. Rings span less than 360° (validated), so at most one shift can.
    @inline(__always)
    static func longitude(_ longitude: Double, inRange minX: Double, _ maxX: Double) -> Double? {
        if longitude >= minX && longitude <= maxX { return longitude }
        let shifted = longitude - 360 * ((longitude - minX) / 360).rounded(.down)
        return shifted >= minX && shifted <= maxX ? shifted : nil
    }

    /// `x` in [-180, 180).
    /// Values already in range are returned unchanged, bit for bit: boundary tests compare
    /// vertices exactly, and (x + 180) - 180 would round.
    static func normalizedLongitude(_ x: Double) -> Double {
        if x >= -180 && x < 180 { return x }
        let shifted = x - 360 * ((x + 180) / 360).rounded(.down)
        return shifted >= 180 ? shifted - 360 : shifted
    }
}
