/// One region part as `RegionShapeIndex` files it in a grid cell: what the query needs to
/// decide containment inline — for a circle its distance bounds, for a polygon its box and
/// its packed rings — plus the region's id, so that a hit reads nothing else. 40 bytes with an
/// `Int32` id: a query reads a whole cell, and its cost is mostly those bytes.
@usableFromInline
struct ShapeCellEntry<ID> {
    @usableFromInline var test: CellTest
    @usableFromInline var handle: Int32
    @usableFromInline var id: ID

    init(test: CellTest, handle: Int32, id: ID) {
        self.test = test
        self.handle = handle
        self.id = id
    }
}

/// How a cell entry decides whether its region contains a point.
@usableFromInline
enum CellTest {
    /// A circle filed whole: its bounds decide, the geodesic (`CircleRegion.contains`) only
    /// near the boundary. No box test: the bounds reject more.
    case circle(CompactCircleBounds)
    /// A polygon region filed whole: its box (`Float`s rounded outward), then
    /// `PolygonRegion.contains` on the packed copy.
    case polygon(CompactBox, PackedPolygonRegion)
    /// Any other part, decided by `RegionShape.contains`: the halves of a region whose box
    /// crosses the antimeridian, and parts on the always-tested list. Only longitudes ≥ `bound`
    /// (east) or ≤ `bound` (west) are tested: each half takes those of its own box, so a
    /// point is reported once; a whole region has bound -∞, east.
    case shape(bound: Double, east: Bool)
}

/// A box as `Float`s rounded outward: a cheap pre-filter that never rejects a point of the box.
@usableFromInline
struct CompactBox {
    @usableFromInline var minLatitude: Float
    @usableFromInline var maxLatitude: Float
    @usableFromInline var minLongitude: Float
    @usableFromInline var maxLongitude: Float

    init(_ box: GeoBox) {
        minLatitude = CircleDistanceBounds.floatDown(box.minLatitude)
        maxLatitude = CircleDistanceBounds.floatUp(box.maxLatitude)
        minLongitude = CircleDistanceBounds.floatDown(box.minLongitude)
        maxLongitude = CircleDistanceBounds.floatUp(box.maxLongitude)
    }

    @inlinable @inline(__always)
    func contains(latitude: Double, longitude: Double) -> Bool {
        latitude >= Double(minLatitude) && latitude <= Double(maxLatitude)
            && longitude >= Double(minLongitude) && longitude <= Double(maxLongitude)
    }
}
