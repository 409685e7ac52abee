/// A 16 × 16 block of grid cells, held densely: the unit `GridLevel` allocates.
///
/// Why tiles: with one hash entry per cell, a query on a random point paid a cache miss on the
/// hash key, another on the value, then one on the cell's entries (~1.2 µs per query on 1M
/// random points). Clustered regions occupy few tiles, so the tile lookup stays in cache and a
/// query misses only on `cells[i]` and the entries. An empty cell is an empty array (Swift's
/// shared empty storage, no allocation): a tile costs ~2 KB plus its entries.
@usableFromInline
final class GridTile {
    /// Cells per side.
    @usableFromInline static let side: Int64 = 16
    /// Row-major, `(row & 15) << 4 | (column & 15)`.
    @usableFromInline var cells: [[IndexEntry]]
    /// Entries in all cells; the tile is dropped at zero.
    var entryCount = 0

    init() { cells = Array(repeating: [], count: Int(Self.side * Self.side)) }

    @inlinable static func slot(row: Int64, column: Int64) -> Int { Int((row & (side - 1)) << 4 | (column & (side - 1))) }
}
