/// One uniform latitude/longitude grid: square cells of `cellDegrees`, each a small array of
/// `IndexEntry`, kept sparse in 16 × 16-cell tiles (`GridTile`; only tiles that hold something
/// exist).
///
/// Sparse because a global grid of ~400 m cells has ~10^9 cells while regions cluster in a
/// few cities; a dictionary from tile key to tile costs one hash lookup per query.
/// Cells are found with `floor`, which is monotone: a point inside a box always falls in a cell
/// the box was filed under, so no query misses and none sees an entry twice.
@usableFromInline
struct GridLevel {
    @usableFromInline let cellDegrees: Double
    @usableFromInline let cellsPerDegree: Double
    /// Tile key (`key(row: row >> 4, column: column >> 4)`) → the tile holding those cells.
    @usableFromInline var tiles: [Int64: GridTile] = [:]
    /// Entries stored, counting a box once per cell it covers.
    @usableFromInline var entryCount = 0

    init(cellDegrees: Double) {
        self.cellDegrees = cellDegrees
        cellsPerDegree = 1 / cellDegrees
    }

    /// Row of a latitude, column of a longitude: any finite degrees give a cell.
    /// Callers keep latitudes in [-90, 90] and longitudes in [-180, 180] (`Int64(_:)` traps on
    /// non-finite values).
    @inlinable func row(_ latitude: Double) -> Int64 { Int64(((latitude + 90) * cellsPerDegree).rounded(.down)) }
    @inlinable func column(_ longitude: Double) -> Int64 { Int64(((longitude + 180) * cellsPerDegree).rounded(.down)) }
    @inlinable static func key(row: Int64, column: Int64) -> Int64 { row &<< 32 | (column & 0xFFFF_FFFF) }

    /// How many cells `box` (not crossing the antimeridian) covers here.
    func cellCount(of box: GeoBox) -> Int64 {
        let (rows, columns) = cells(of: box)
        return Int64(rows.count) * Int64(columns.count)
    }

    mutating func insert(_ entry: IndexEntry, box: GeoBox) {
        let (rows, columns) = cells(of: box)
        for r in rows {
            for c in columns {
                let tileKey = Self.key(row: r >> 4, column: c >> 4)
                let tile: GridTile
                if let t = tiles[tileKey] { tile = t } else { tile = GridTile(); tiles[tileKey] = tile }
                tile.cells[GridTile.slot(row: r, column: c)].append(entry)
                tile.entryCount += 1
                entryCount += 1
            }
        }
    }

    /// Removes the entries of `handle` from every cell `box` covers; `box` must be the one it
    /// was inserted with. An emptied tile is dropped, so churn does not leak tiles.
    mutating func remove(handle: Int32, box: GeoBox) {
        let (rows, columns) = cells(of: box)
        for r in rows {
            for c in columns {
                let tileKey = Self.key(row: r >> 4, column: c >> 4)
                guard let tile = tiles[tileKey] else { continue }
                let slot = GridTile.slot(row: r, column: c)
                guard let i = tile.cells[slot].firstIndex(where: { $0.handle == handle }) else { continue }
                tile.cells[slot].swapAt(i, tile.cells[slot].count - 1)  // order in a cell carries no meaning
                tile.cells[slot].removeLast()
                tile.entryCount -= 1
                entryCount -= 1
                if tile.entryCount == 0 { tiles[tileKey] = nil }
            }
        }
    }

    /// The rows and columns of the cells `box` covers. Plain loops over these, not a closure
    /// called per cell: a closure mutating `self` from a non-mutating method made every append
    /// copy the whole cell table (600 µs per insert at 110,000 regions).
    private func cells(of box: GeoBox) -> (ClosedRange<Int64>, ClosedRange<Int64>) {
        (row(box.minLatitude)...row(box.maxLatitude), column(box.minLongitude)...column(box.maxLongitude))
    }

    /// Calls `body` with every entry filed in the cell of the point.
    @inlinable
    func forEachEntry(latitude: Double, longitude: Double, _ body: (IndexEntry) -> Void) {
        let r = row(latitude), c = column(longitude)
        guard let tile = tiles[Self.key(row: r >> 4, column: c >> 4)] else { return }
        tile.cells[GridTile.slot(row: r, column: c)].withUnsafeBufferPointer { entries in
            for e in entries { body(e) }
        }
    }

    /// Bytes held, approximately: entries plus the dictionary and per-array headers.
    var approximateBytes: Int {
        var bytes = tiles.capacity * (MemoryLayout<Int64>.stride + MemoryLayout<GridTile>.stride) * 5 / 4
        for tile in tiles.values {
            bytes += 48 + 32 + tile.cells.capacity * MemoryLayout<[IndexEntry]>.stride  // object, array, cell refs
            for cell in tile.cells where cell.capacity > 0 { bytes += 32 + cell.capacity * MemoryLayout<IndexEntry>.stride }
        }
        return bytes
    }
}
