/// One region part as `RegionShapeIndex` files it in a grid cell: how to decide containment
/// there (`test`), the handle of the region's exact shape (for the few points `test` leaves
/// open, and for removal), and its id, so that a hit reads nothing else.
@usableFromInline
struct CellEntry<Test, ID> {
    @usableFromInline var test: Test
    @usableFromInline var handle: Int32
    @usableFromInline var id: ID

    init(test: Test, handle: Int32, id: ID) {
        self.test = test
        self.handle = handle
        self.id = id
    }
}

/// A circle: its distance bounds relative to the cell's corner. 32 bytes with an `Int32` id:
/// a query reads all of a cell's circles, and its cost is mostly those bytes.
@usableFromInline typealias CircleCellEntry<ID> = CellEntry<CompactCircleBounds, ID>

/// Any other part: for a polygon region its raster in this cell and its packed rings.
@usableFromInline typealias ShapeCellEntry<ID> = CellEntry<CellTest, ID>

/// How a `ShapeCellEntry` decides whether its region contains a point.
@usableFromInline
enum CellTest {
    /// A polygon region filed whole: its raster in this cell decides most points, the packed
    /// copy of `PolygonRegion` the rest.
    case polygon(PolygonCellCoverage, PackedPolygonRegion)
    /// Any other part, decided by `RegionShape.contains`: the halves of a region whose box
    /// crosses the antimeridian, and parts on the always-tested list. Only longitudes ≥ `bound`
    /// (east) or ≤ `bound` (west) are tested: each half takes those of its own box, so a
    /// point is reported once; a whole region has bound -∞, east.
    case shape(bound: Double, east: Bool)
}
