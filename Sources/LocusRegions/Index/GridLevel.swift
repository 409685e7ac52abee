/// One uniform latitude/longitude grid: square cells of `cellDegrees`, kept sparse (only cells
/// that hold something exist), each a small array of `IndexEntry`.
///
/// Sparse because a global grid of ~200 m cells has ~10^10 cells while regions cluster in a
/// few cities; a dictionary from cell key to bucket costs one hash lookup per query.
/// Cells are found with `floor`, which is monotone: a point inside a box always falls in a cell
/// the box was filed under, so no query misses and none sees an entry twice.
@usableFromInline
struct GridLevel: Sendable {
    @usableFromInline let cellDegrees: Double
    @usableFromInline let cellsPerDegree: Double
    /// Cell key → index into `buckets`.
    @usableFromInline var bucketOfCell: [Int64: Int32] = [:]
    @usableFromInline var buckets: [[IndexEntry]] = []
    /// Indices of emptied buckets, reused before `buckets` grows (churn must not leak).
    var freeBuckets: [Int32] = []
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
        (row(box.maxLatitude) - row(box.minLatitude) + 1) * (column(box.maxLongitude) - column(box.minLongitude) + 1)
    }

    mutating func insert(_ entry: IndexEntry, box: GeoBox) {
        forEachCell(of: box) { key in
            if let b = bucketOfCell[key] {
                buckets[Int(b)].append(entry)
            } else if let b = freeBuckets.popLast() {
                buckets[Int(b)].append(entry)
                bucketOfCell[key] = b
            } else {
                bucketOfCell[key] = Int32(buckets.count)
                buckets.append([entry])
            }
            entryCount += 1
        }
    }

    /// Removes the entries of `handle` from every cell `box` covers; `box` must be the one it
    /// was inserted with.
    mutating func remove(handle: Int32, box: GeoBox) {
        forEachCell(of: box) { key in
            guard let b = bucketOfCell[key] else { return }
            let bucket = Int(b)
            guard let i = buckets[bucket].firstIndex(where: { $0.handle == handle }) else { return }
            // Order within a cell carries no meaning, so swap-remove: O(1) after the scan.
            buckets[bucket].swapAt(i, buckets[bucket].count - 1)
            buckets[bucket].removeLast()
            entryCount -= 1
            if buckets[bucket].isEmpty {
                bucketOfCell[key] = nil
                freeBuckets.append(b)
            }
        }
    }

    private func forEachCell(of box: GeoBox, _ body: (Int64) -> Void) {
        let c0 = column(box.minLongitude), c1 = column(box.maxLongitude)
        for r in row(box.minLatitude)...row(box.maxLatitude) {
            for c in c0...c1 { body(Self.key(row: r, column: c)) }
        }
    }

    /// Calls `body` with every entry filed in the cell of the point.
    @inlinable
    func forEachEntry(latitude: Double, longitude: Double, _ body: (IndexEntry) -> Void) {
        guard let b = bucketOfCell[Self.key(row: row(latitude), column: column(longitude))] else { return }
        buckets[Int(b)].withUnsafeBufferPointer { entries in
            for e in entries { body(e) }
        }
    }

    /// Bytes held, approximately: entries plus the dictionary and per-array headers.
    var approximateBytes: Int {
        let entries = buckets.reduce(0) { $0 + $1.capacity } * MemoryLayout<IndexEntry>.stride
        let arrays = buckets.count * (32 + MemoryLayout<[IndexEntry]>.stride)
        let dictionary = bucketOfCell.capacity * (MemoryLayout<Int64>.stride + MemoryLayout<Int32>.stride) * 5 / 4
        return entries + arrays + dictionary
    }
}
