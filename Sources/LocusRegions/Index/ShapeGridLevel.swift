/// One uniform grid of `RegionShapeIndex`: square cells of `cellDegrees`, each a `GridCell`
/// (one block of entries), allocated 16 × 16 cells (a tile) at a time; only tiles that hold
/// something exist.
///
/// A tile's 256 cells are a chunk of one flat table, `cells[chunk << 8 | slot]`, found through
/// `TileTable`: a query is one hash probe, one table element, then the cell's entries. Cells are
/// found with `floor`, which is monotone: a point inside a box always falls in a cell the box
/// was filed under.
///
/// Storage is manual (raw allocations, entries initialised and deinitialised by hand) so that
/// what a query reads, `view`, is a plain value: copying it out of the index retains nothing.
/// The owner calls `deallocate()` once.
@usableFromInline
struct ShapeGridLevel<ID> {
    @usableFromInline var view: GridView<ID>
    /// Cell chunks allocated in `view.cells`.
    var chunkCapacity = 0
    var chunkCount = 0
    /// Entries per chunk; a chunk is recycled (its tile dropped) at zero.
    var chunkEntryCounts: [Int32] = []
    var freeChunks: [Int32] = []

    init(cellDegrees: Double) {
        view = GridView(cellDegrees: cellDegrees, cellsPerDegree: 1 / cellDegrees, tiles: TileTable(),
                        cells: .allocate(capacity: 0), entryCount: 0)
    }

    func deallocate() {
        for i in 0 ..< chunkCount << 8 { view.cells[i].deallocate() }
        view.cells.deallocate()
        view.tiles.deallocate()
    }

    var entryCount: Int { view.entryCount }

    /// How many cells `box` (not crossing the antimeridian) covers here.
    func cellCount(of box: GeoBox) -> Int64 {
        (view.row(box.maxLatitude) - view.row(box.minLatitude) + 1) * (view.column(box.maxLongitude) - view.column(box.minLongitude) + 1)
    }

    /// Files entries in every cell `box` covers: `file` adds them to the cell whose south-west
    /// corner is given (circle bounds and polygon rasters are relative to it) and returns how
    /// many it added.
    mutating func insert(box: GeoBox, _ file: (_ cell: inout GridCell<ID>, _ cornerLatitude: Double, _ cornerLongitude: Double) -> Int) {
        for r in view.row(box.minLatitude)...view.row(box.maxLatitude) {
            for c in view.column(box.minLongitude)...view.column(box.maxLongitude) {
                let key = GridView<ID>.tileKey(row: r, column: c)
                let chunk: Int
                if let k = view.tiles.chunk(key) {
                    chunk = k
                } else {
                    chunk = newChunk()
                    view.tiles.insert(key, chunk: Int32(chunk))
                }
                let added = file(&view.cells[chunk << 8 | GridView<ID>.slot(row: r, column: c)], view.cornerLatitude(r), view.cornerLongitude(c))
                chunkEntryCounts[chunk] += Int32(added)
                view.entryCount += added
                if chunkEntryCounts[chunk] == 0 {
                    view.tiles.remove(key)
                    freeChunks.append(Int32(chunk))
                }
            }
        }
    }

    /// Removes the entries of `handle` from every cell `box` covers; `box` must be the one it
    /// was inserted with. Emptied cells give back their storage, emptied tiles their chunk.
    mutating func remove(handle: Int32, box: GeoBox) {
        for r in view.row(box.minLatitude)...view.row(box.maxLatitude) {
            for c in view.column(box.minLongitude)...view.column(box.maxLongitude) {
                let key = GridView<ID>.tileKey(row: r, column: c)
                guard let chunk = view.tiles.chunk(key) else { continue }
                let cell = view.cells + (chunk << 8 | GridView<ID>.slot(row: r, column: c))
                let removed = cell.pointee.remove(handle: handle)
                guard removed > 0 else { continue }
                chunkEntryCounts[chunk] -= Int32(removed)
                view.entryCount -= removed
                if chunkEntryCounts[chunk] == 0 {
                    view.tiles.remove(key)
                    freeChunks.append(Int32(chunk))
                }
            }
        }
    }

    private mutating func newChunk() -> Int {
        if let k = freeChunks.popLast() { return Int(k) }
        if chunkCount == chunkCapacity {
            chunkCapacity = max(4, chunkCapacity * 2)
            let cells = UnsafeMutablePointer<GridCell<ID>>.allocate(capacity: chunkCapacity << 8)
            cells.moveInitialize(from: view.cells, count: chunkCount << 8)
            view.cells.deallocate()
            view.cells = cells
        }
        (view.cells + (chunkCount << 8)).initialize(repeating: GridCell(), count: 256)
        chunkEntryCounts.append(0)
        chunkCount += 1
        return chunkCount - 1
    }

    /// Bytes held, approximately: entries, the cell table, the tile table.
    var approximateBytes: Int {
        var bytes = view.tiles.approximateBytes + chunkCapacity * 256 * MemoryLayout<GridCell<ID>>.stride
        for i in 0 ..< chunkCount << 8 { bytes += view.cells[i].allocatedBytes }
        return bytes
    }
}

/// What a query of a `ShapeGridLevel` reads: numbers and pointers only.
@usableFromInline
struct GridView<ID> {
    @usableFromInline let cellDegrees: Double
    @usableFromInline let cellsPerDegree: Double
    @usableFromInline var tiles: TileTable
    @usableFromInline var cells: UnsafeMutablePointer<GridCell<ID>>
    @usableFromInline var entryCount: Int

    @inlinable init(cellDegrees: Double, cellsPerDegree: Double, tiles: TileTable, cells: UnsafeMutablePointer<GridCell<ID>>, entryCount: Int) {
        self.cellDegrees = cellDegrees
        self.cellsPerDegree = cellsPerDegree
        self.tiles = tiles
        self.cells = cells
        self.entryCount = entryCount
    }

    /// Row of a latitude, column of a longitude. Callers keep latitudes in [-90, 90] and
    /// longitudes in [-180, 180] (`Int64(_:)` traps on non-finite values).
    @inlinable @inline(__always) func row(_ latitude: Double) -> Int64 { Int64(((latitude + 90) * cellsPerDegree).rounded(.down)) }
    @inlinable @inline(__always) func column(_ longitude: Double) -> Int64 { Int64(((longitude + 180) * cellsPerDegree).rounded(.down)) }
    /// The south-west corner of a cell. Inserts and queries must compute it the same way:
    /// circle bounds are stored relative to it.
    @inlinable @inline(__always) func cornerLatitude(_ row: Int64) -> Double { Double(row) * cellDegrees - 90 }
    @inlinable @inline(__always) func cornerLongitude(_ column: Int64) -> Double { Double(column) * cellDegrees - 180 }
    @inlinable @inline(__always) static func tileKey(row: Int64, column: Int64) -> Int64 { (row >> 4) &<< 32 | ((column >> 4) & 0xFFFF_FFFF) }
    @inlinable @inline(__always) static func slot(row: Int64, column: Int64) -> Int { Int((row & 15) << 4 | (column & 15)) }

    /// The cell of a point (latitude in [-90, 90], longitude in [-180, 180)), with the point's
    /// offsets from the cell's south-west corner; nil when no entry was ever filed there.
    @inlinable @inline(__always)
    func cell(latitude: Double, longitude: Double) -> (cell: GridCell<ID>, latitudeFromCorner: Double, longitudeFromCorner: Double)? {
        let r = row(latitude), c = column(longitude)
        guard let chunk = tiles.chunk(Self.tileKey(row: r, column: c)) else { return nil }
        return (cells[chunk << 8 | Self.slot(row: r, column: c)], latitude - cornerLatitude(r), longitude - cornerLongitude(c))
    }
}
