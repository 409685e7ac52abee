import LocusCore

/// Where a polygon region lies within one grid cell, on an 8 × 8 raster: for each sub-cell,
/// whether the region covers it completely, misses it completely, or its boundary passes
/// close to it ("mixed"). A query whose point falls in a decided sub-cell is answered from two
/// bits in the cell entry and never reads the polygon's vertices; only mixed sub-cells go to
/// `PolygonRegion`'s own test.
///
/// Why: on the geofence benchmark a polygon candidate cost ~200 ns, almost all of it the
/// cache misses and branches of the vertex walk; the raster decides most points in a few ns.
///
/// The raster spans `frame`, the part of the region's box inside the cell (in degrees from the
/// cell's south-west corner, `Float`s rounded outward), so small polygons still get fine
/// sub-cells. Points outside the frame are outside the region's box, hence outside.
///
/// Why a decided answer is exactly the polygon test's answer, for every point that can reach
/// the sub-cell (see `classify`): no edge comes within `pad` of the sub-cell's rectangle,
/// grown by `pad`; a point mapped there lies in that grown rectangle (mapping errors are
/// below 1e-13°), so ≥ `pad` − 1e-13° from every edge. The polygon test's only rounded step is
/// the sign of a cross product, wrong only within 4u·(|Δx|+|Δx′|) ≤ 3.2e-13° of an edge
/// (u = 2⁻⁵³, longitudes span at most 720°), so for such a point it computes the true
/// even-odd parity — and the true parity is the same at every point of a connected region
/// no edge crosses. `classify` asks the polygon test at one interior point of each such
/// region.
@usableFromInline
struct PolygonCellCoverage {
    /// The raster's extent, degrees from the cell corner; `latitudeScale` and `longitudeScale`
    /// are sub-cells per degree (8 / extent, rounded down so the raster covers the extent).
    @usableFromInline let minLatitude: Float
    @usableFromInline let minLongitude: Float
    @usableFromInline let latitudeScale: Float
    @usableFromInline let longitudeScale: Float
    /// Bit `row * 8 + column`: the sub-cell is decided (not mixed) …
    @usableFromInline let decided: UInt64
    /// … and, when decided, inside the region.
    @usableFromInline let inside: UInt64

    /// How far outside the frame, in sub-cells, a point still counts as in it (then clamped to
    /// the border sub-cell): well above the frame's rounding (~1e-8 sub-cells), well below the
    /// margin `classify` grows sub-cells by (1e-5 sub-cells).
    @usableFromInline static let slack = 1e-6

    /// The region's answer for a point at (`latitudeFromCorner`, `longitudeFromCorner`) in the
    /// cell: true or false when the raster decides, nil when only the polygon test can.
    @inlinable @inline(__always)
    func contains(latitudeFromCorner: Double, longitudeFromCorner: Double) -> Bool? {
        let u = (latitudeFromCorner - Double(minLatitude)) * Double(latitudeScale)
        let v = (longitudeFromCorner - Double(minLongitude)) * Double(longitudeScale)
        guard u >= -Self.slack, u <= 8 + Self.slack, v >= -Self.slack, v <= 8 + Self.slack else { return false }
        let bit = UInt64(1) &<< UInt64(min(7, Int(max(0, u))) &* 8 &+ min(7, Int(max(0, v))))
        guard decided & bit != 0 else { return nil }
        return inside & bit != 0
    }

    /// The raster of `region` in the cell whose south-west corner is (`cornerLatitude`,
    /// `cornerLongitude`) and whose side is `cellDegrees`. `box` is the region's box (not
    /// crossing the antimeridian), which overlaps the cell.
    init(_ region: PolygonRegion, box: GeoBox, cornerLatitude: Double, cornerLongitude: Double, cellDegrees: Double) {
        // The frame: box ∩ cell, in offsets from the corner, at least `minimumExtent` wide (a
        // box touching the cell along a line still maps its points stably).
        func range(_ low: Double, _ high: Double, corner: Double) -> (Float, Float) {
            var a = max(0, low - corner), b = min(cellDegrees, high - corner)
            if b - a < Self.minimumExtent { let mid = (a + b) / 2; a = mid - Self.minimumExtent / 2; b = mid + Self.minimumExtent / 2 }
            let start = CircleDistanceBounds.floatDown(a)
            // Scale rounded down: the 8 sub-cells reach at least to `b`.
            return (start, CircleDistanceBounds.floatDown(8 / (b - Double(start)) * (1 - 1e-12)))
        }
        (minLatitude, latitudeScale) = range(box.minLatitude, box.maxLatitude, corner: cornerLatitude)
        (minLongitude, longitudeScale) = range(box.minLongitude, box.maxLongitude, corner: cornerLongitude)
        (decided, inside) = Self.classify(region, origin: PlanePoint(x: cornerLongitude + Double(minLongitude), y: cornerLatitude + Double(minLatitude)),
                                          step: PlanePoint(x: 1 / Double(longitudeScale), y: 1 / Double(latitudeScale)))
    }

    /// A frame narrower than this (degrees, ~1 m) is widened: sub-cells much smaller than the
    /// corner offsets' rounding would make the mapping unstable.
    static let minimumExtent = 1e-5

    /// Regions with more edges than this are not rasterised (every sub-cell mixed): the cost
    /// of classifying grows with edges × sub-cells, and inserts must stay cheap.
    static let maximumEdges = 512

    /// (decided, inside) bit sets for the 8 × 8 sub-cells starting at `origin` (absolute
    /// lon/lat) with sides `step`.
    static func classify(_ region: PolygonRegion, origin: PlanePoint, step: PlanePoint) -> (UInt64, UInt64) {
        // Vertices outside [-180, 180] (a ring unwrapped across the antimeridian, or a part in
        // another 360° frame) are not compared with the frame: leave everything mixed.
        guard region.vertices.count - region.rings.count <= maximumEdges,
              region.polygons.allSatisfy({ $0.minX >= -180 && $0.maxX <= 180 }) else { return (0, 0) }
        // Each sub-cell grown by `pad` (degrees): the distance every decided point keeps from
        // every edge. 1e-9° is 3,000× the cross product's worst rounding (see the type's doc).
        let padX = max(1e-9, step.x * 1e-5), padY = max(1e-9, step.y * 1e-5)
        func rectangle(_ row: Int, _ column: Int) -> (PlanePoint, PlanePoint) {
            (PlanePoint(x: origin.x + Double(column) * step.x - padX, y: origin.y + Double(row) * step.y - padY),
             PlanePoint(x: origin.x + Double(column + 1) * step.x + padX, y: origin.y + Double(row + 1) * step.y + padY))
        }
        var mixed: UInt64 = 0
        let v = region.vertices
        for ring in region.rings {
            for i in ring.start ..< ring.end - 1 {
                let a = v[i], b = v[i + 1]
                // Sub-cells near the edge's box (one more each way: the division rounds), then
                // the test against each grown rectangle.
                let firstRow = max(0, Self.index((min(a.y, b.y) - origin.y) / step.y) - 1)
                let lastRow = min(7, Self.index((max(a.y, b.y) - origin.y) / step.y) + 1)
                let firstColumn = max(0, Self.index((min(a.x, b.x) - origin.x) / step.x) - 1)
                let lastColumn = min(7, Self.index((max(a.x, b.x) - origin.x) / step.x) + 1)
                guard firstRow <= lastRow, firstColumn <= lastColumn else { continue }
                for row in firstRow ... lastRow {
                    for column in firstColumn ... lastColumn where mixed & (1 << (row * 8 + column)) == 0 {
                        let (low, high) = rectangle(row, column)
                        if Self.segment(a, b, mayTouch: low, high) { mixed |= 1 << (row * 8 + column) }
                    }
                }
            }
        }
        // Sub-cells that are not mixed, flooded 4-connected: two neighbours share an edge-free
        // union, so one polygon test per component answers for all of it. Bit k is row k / 8,
        // column k % 8; the flood grows a component by shifts until it stops.
        let free = ~mixed
        var decided: UInt64 = 0, inside: UInt64 = 0
        while free & ~decided != 0 {
            let start = (free & ~decided).trailingZeroBitCount
            var component: UInt64 = 1 << start
            while true {
                let grown = (component | component << 8 | component >> 8
                    | (component << 1) & ~Self.firstColumn | (component >> 1) & ~Self.lastColumn) & free
                if grown == component { break }
                component = grown
            }
            decided |= component
            let centre = Coordinate(latitude: origin.y + (Double(start / 8) + 0.5) * step.y,
                                    longitude: origin.x + (Double(start % 8) + 0.5) * step.x)
            if region.location(of: centre) != .outside { inside |= component }
        }
        return (decided, inside)
    }

    /// Bits of the sub-cells in column 0 and in column 7.
    static let firstColumn: UInt64 = 0x0101_0101_0101_0101
    static let lastColumn: UInt64 = 0x8080_8080_8080_8080

    /// The sub-cell index of a position `t` in sub-cells, kept within -1 … 8 (just off the
    /// raster) so that it converts to `Int`.
    private static func index(_ t: Double) -> Int {
        Int(min(8, max(-1, t.rounded(.down))))
    }

    /// Whether segment a–b may touch the rectangle [low, high]: false only when certain it does
    /// not. Exact criterion: the boxes overlap and the rectangle's corners are not all strictly
    /// on one side of the line; the side test allows its own rounding.
    static func segment(_ a: PlanePoint, _ b: PlanePoint, mayTouch low: PlanePoint, _ high: PlanePoint) -> Bool {
        guard max(a.x, b.x) >= low.x, min(a.x, b.x) <= high.x, max(a.y, b.y) >= low.y, min(a.y, b.y) <= high.y else { return false }
        let dx = b.x - a.x, dy = b.y - a.y
        // +1 strictly above the line, -1 strictly below, 0 when rounding could put it on it.
        func side(_ x: Double, _ y: Double) -> Int {
            let ex = x - a.x, ey = y - a.y
            let cross = dx * ey - dy * ex
            let tolerance = 1e-14 * (abs(dx) + abs(dy)) * (abs(ex) + abs(ey))
            return cross > tolerance ? 1 : cross < -tolerance ? -1 : 0
        }
        let sides = (side(low.x, low.y), side(high.x, low.y), side(high.x, high.y), side(low.x, high.y))
        if sides.0 == 0 || sides.1 == 0 || sides.2 == 0 || sides.3 == 0 { return true }
        return !(sides.0 == sides.1 && sides.1 == sides.2 && sides.2 == sides.3)
    }
}
