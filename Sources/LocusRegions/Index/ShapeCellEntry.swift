/// A circle as `RegionShapeIndex` files it in a grid cell: its distance bounds relative to
/// the cell's corner, the handle of its exact shape (for the few points the bounds leave
/// open), and its id, so that a hit reads nothing else. 32 bytes with an `Int32` id: a query
/// reads all of a cell's circles, and its cost is mostly those bytes.
@usableFromInline
struct CircleCellEntry<ID>: CellEntry {
    @usableFromInline var bounds: CompactCircleBounds
    @usableFromInline var handle: Int32
    @usableFromInline var id: ID

    init(bounds: CompactCircleBounds, handle: Int32, id: ID) {
        self.bounds = bounds
        self.handle = handle
        self.id = id
    }
}

/// Any other region part as `RegionShapeIndex` files it in a grid cell: how to decide
/// containment (for a polygon region, its raster in this cell and its packed rings), its
/// shape's handle and its id.
@usableFromInline
struct ShapeCellEntry<ID>: CellEntry {
    @usableFromInline var test: CellTest
    @usableFromInline var handle: Int32
    @usableFromInline var id: ID

    init(test: CellTest, handle: Int32, id: ID) {
        self.test = test
        self.handle = handle
        self.id = id
    }
}

/// What a cell's entry lists need of an entry: whose it is, for removal.
@usableFromInline
protocol CellEntry {
    var handle: Int32 { get }
}

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
